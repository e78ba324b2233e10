import { Module } from '@nestjs/common';
import { MessConfigModule } from '../mess-config';
import { FeedbackController } from './feedback.controller';
import { FeedbackQueries } from './feedback.queries';
import { FeedbackRepository } from './feedback.repository';
import { FeedbackService } from './feedback.service';

@Module({
  imports: [MessConfigModule],
  controllers: [FeedbackController],
  providers: [FeedbackRepository, FeedbackService, FeedbackQueries],
  exports: [FeedbackQueries],
})
export class FeedbackModule {}
