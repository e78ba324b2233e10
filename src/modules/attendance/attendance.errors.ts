import { describeConstraint } from '../../common/errors/database-errors';

describeConstraint('attendance_status_check', 400, 'status must be present or absent');
// A member deleted between the check and the write.
describeConstraint('attendance_user_id_users_id_fk', 404, 'User not found');
describeConstraint('attendance_marked_by_users_id_fk', 404, 'User not found');
