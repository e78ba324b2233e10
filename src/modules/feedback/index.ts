export { FeedbackModule } from './feedback.module';
export { FeedbackQueries } from './feedback.queries';
// A member's records for their data export and erasure (extension 2.3).
export { FeedbackMemberData } from './feedback-member-data';
