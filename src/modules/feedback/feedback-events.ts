import type { FeedbackEvent } from '../../common/events/event-map';
import type { FeedbackRow } from './feedback.schema';

/** The payload of 'feedback.submitted', published on creation and on every change. */
export const feedbackEvent = (row: FeedbackRow): FeedbackEvent => ({
  feedbackId: row.id,
  userId: row.userId,
  date: row.date,
  mealType: row.mealType,
  rating: row.rating,
});
