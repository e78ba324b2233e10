import { describeConstraint } from '../../common/errors/database-errors';

describeConstraint('attendance_status_check', 400, 'status must be present or absent');
// A member deleted between the check and the write.
describeConstraint('attendance_user_id_users_id_fk', 404, 'User not found');
describeConstraint('attendance_marked_by_users_id_fk', 404, 'User not found');
describeConstraint('attendance_source_check', 400, 'source must be member, mess or counter');

/** A member changing a mark that a manager, an admin or the counter made. */
export const MESS_MADE_MARK = 'This mark was made by the mess; ask a manager to change it';
/** A member's own mark outside the configured markingWindow. */
export const MARKING_CLOSED = 'Marking for this meal is closed';
/** A member with `dines: false` marking their own meal. */
export const NOT_A_DINER = 'You do not dine at the mess, so you have no meals to mark';
/** The mess marking present (or scanning) a member with `dines: false`: the bill counts every present mark. */
export const MEMBER_NOT_A_DINER = 'The member does not dine at the mess';
/** A present mark (or a scan) for a meal covered by the member's approved leave. */
export const ON_LEAVE = 'On leave';
/** A forged, tampered, expired or not-yet-valid pass at the counter. */
export const INVALID_PASS = 'Invalid pass';
/** A pass asked for after its meal ended. */
export const PASS_MEAL_OVER = 'This meal is over; no pass can be issued for it';
