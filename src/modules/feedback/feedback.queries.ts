import { Injectable } from '@nestjs/common';
import { FeedbackRepository } from './feedback.repository';

export interface RatingAverage {
  /** Mean rating 1..5, unrounded; null when there is no feedback in the range. */
  average: number | null;
  count: number;
}

/**
 * The read-only view of feedback that other modules (analytics' meal quality) may use. Each method is one
 * aggregate query over the meal dates `from`..`to` (`YYYY-MM-DD`, inclusive).
 */
@Injectable()
export class FeedbackQueries {
  constructor(private readonly repository: FeedbackRepository) {}

  averageRating(from: string, to: string): Promise<RatingAverage> {
    return this.repository.averageRating(from, to);
  }

  /** The unrounded mean rating of every mess over the range, by mess id; a mess without feedback is absent. */
  averageRatingPerMess(from: string, to: string): Promise<Map<string, number>> {
    return this.repository.averageRatingPerMess(from, to);
  }

  /** Meal types without feedback in the range are absent. */
  averageRatingByMealType(
    from: string,
    to: string,
  ): Promise<{ mealType: string; average: number; count: number }[]> {
    return this.repository.averageRatingByMealType(from, to);
  }
}
