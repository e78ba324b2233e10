import { FeedbackMemberData } from './feedback-member-data';
import { Module } from '@nestjs/common';
import { MessConfigModule } from '../mess-config';
import { FeedbackController } from './feedback.controller';
import { FeedbackQueries } from './feedback.queries';
import { FeedbackRepository } from './feedback.repository';
import { FeedbackService } from './feedback.service';

@Module({
  imports: [MessConfigModule],
  controllers: [FeedbackController],
  providers: [FeedbackRepository, FeedbackService, FeedbackQueries, FeedbackMemberData],
  exports: [FeedbackQueries, FeedbackMemberData],
})
export class FeedbackModule {}
