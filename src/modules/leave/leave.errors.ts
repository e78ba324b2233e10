import { describeConstraint } from '../../common/errors/database-errors';
import { conflict } from '../../common/errors/api-error';

describeConstraint('leaves_user_id_users_id_fk', 404, 'User not found');
describeConstraint('leaves_status_check', 400, 'status must be pending, approved, rejected or cancelled');
describeConstraint('leaves_dates_check', 400, 'The leave ends before it starts');

export const LEAVE_NOT_FOUND = 'Leave not found';
export const LEAVE_OVERLAPS = 'This leave overlaps a pending or approved leave of the member';
export const LEAVE_EATEN =
  'A meal this leave covers was recorded eaten by the mess (a scan or a manager’s mark); correct that mark first';
export const ONLY_PENDING_APPROVED = 'Only a pending leave can be approved';
export const ONLY_PENDING_REJECTED = 'Only a pending leave can be rejected; cancel an approved one';
export const ALREADY_DECIDED = 'This leave was rejected; it cannot be cancelled';
export const CANCEL_TOO_LATE = 'A member cancels a leave only before its first meal starts; ask a manager';
export const OWN_LEAVE_ONLY = 'You can only ask for, see or cancel your own leave';

export const closedMonthError = (month: string) =>
  conflict(`Month ${month} is closed: its bill is frozen. An admin can reopen it.`);
