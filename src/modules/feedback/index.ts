export { FeedbackModule } from './feedback.module';
export { FeedbackQueries } from './feedback.queries';
