import { describeConstraint } from '../../common/errors/database-errors';
import { MAX_COMMENT_LENGTH } from './feedback.schema';

export const FEEDBACK_GIVEN =
  'You have already given feedback for this meal; change it with PUT /feedback/:id';
export const FEEDBACK_UNIQUE = 'feedback_mess_user_date_meal_unique';
/** Filtering by another member would undo the anonymity students see. */
export const FEEDBACK_OTHERS_HIDDEN =
  "Students see other members' feedback anonymously: filter by your own userId only";

describeConstraint(FEEDBACK_UNIQUE, 409, FEEDBACK_GIVEN);
describeConstraint('feedback_rating_check', 400, 'rating must be a whole number from 1 to 5');
describeConstraint(
  'feedback_comment_length_check',
  400,
  `comment must be at most ${MAX_COMMENT_LENGTH} characters`,
);
describeConstraint('feedback_user_id_users_id_fk', 404, 'User not found');
