import { can } from '../../common/auth/permissions';
import { Injectable } from '@nestjs/common';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { badRequest, conflict, forbidden, notFound } from '../../common/errors/api-error';
import { violatedUniqueConstraint } from '../../common/errors/database-errors';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import { Clock } from '../../common/time/clock';
import { localParts } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import { MessConfigService } from '../mess-config';
import { ListFeedbackQuery, SubmitFeedbackDto, UpdateFeedbackDto } from './dto/feedback.requests';
import { feedbackEvent } from './feedback-events';
import { FeedbackListRow, FeedbackRepository } from './feedback.repository';
import { FeedbackRow } from './feedback.schema';
import { FEEDBACK_GIVEN, FEEDBACK_OTHERS_HIDDEN, FEEDBACK_UNIQUE } from './feedback.errors';

/** A feedback as its reader may see it: `member` is null where the reader may not know who gave it. */
export type VisibleFeedback = Omit<FeedbackListRow, 'fullName'> & {
  member: { id: string; fullName: string } | null;
};

/** Members' ratings of meals; the owner of the `feedback` table. */
@Injectable()
export class FeedbackService {
  constructor(
    private readonly repository: FeedbackRepository,
    private readonly messConfig: MessConfigService,
    private readonly events: DomainEventBus,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /**
   * Every member reads all feedback; a student sees who gave only their own (`member` is null on the others'),
   * staff see everyone's. A student's `userId` filter may name only themself, or the filter would undo that.
   * `mealType` is not checked against the configuration: old names still filter.
   */
  async list(
    caller: CurrentMember,
    query: ListFeedbackQuery,
  ): Promise<{ rows: VisibleFeedback[]; total: number }> {
    const staff = can(caller, 'feedback.read-all');
    if (!staff && query.userId !== undefined && query.userId !== caller.id)
      throw forbidden(FEEDBACK_OTHERS_HIDDEN);
    const { rows, total } = await this.repository.list({
      mealType: query.mealType,
      date: query.date,
      rating: query.rating,
      userId: query.userId,
      limit: query.limit,
      offset: (query.page - 1) * query.limit,
    });
    const visible = rows.map(({ fullName, ...row }) => ({
      ...row,
      member: staff || row.userId === caller.id ? { id: row.userId, fullName: fullName ?? '' } : null,
    }));
    return { rows: visible, total };
  }

  /** One per (member, date, meal), for a configured meal on or before today; a second is 409. */
  async submit(caller: CurrentMember, body: SubmitFeedbackDto): Promise<FeedbackRow> {
    await this.messConfig.assertMealType(body.mealType);
    const today = localParts(this.clock.now(), this.config.messTimezone).date;
    if (body.date > today) {
      throw badRequest('Validation failed', [
        { field: 'date', message: `feedback is for meals on or before today (${today})` },
      ]);
    }
    const row = await this.repository
      .insert({
        userId: caller.id,
        date: body.date,
        mealType: body.mealType,
        rating: body.rating,
        comment: body.comment ?? '',
      })
      .catch(async (error: unknown) => {
        if (violatedUniqueConstraint(error) !== FEEDBACK_UNIQUE) throw error;
        // The 409 names the feedback to change with PUT.
        throw conflict(FEEDBACK_GIVEN, await this.repository.findIdFor(caller.id, body.date, body.mealType));
      });
    this.events.publish('feedback.submitted', feedbackEvent(row));
    return row;
  }

  /** The member who gave it, or an admin, changes the rating and/or the comment. */
  async update(caller: CurrentMember, id: string, body: UpdateFeedbackDto): Promise<FeedbackRow> {
    if (body.rating === undefined && body.comment === undefined) {
      throw badRequest('Validation failed', [{ field: 'body', message: 'send rating and/or comment' }]);
    }
    const existing = await this.repository.findById(id);
    if (!existing) throw notFound('Feedback not found');
    if (existing.userId !== caller.id && !can(caller, 'feedback.edit-any')) {
      throw forbidden('You can only edit your own feedback');
    }
    const changes = {
      ...(body.rating !== undefined ? { rating: body.rating } : {}),
      ...(body.comment !== undefined ? { comment: body.comment } : {}),
    };
    if (Object.entries(changes).every(([key, value]) => existing[key as keyof typeof changes] === value)) {
      return existing;
    }
    const row = await this.repository.update(id, changes, this.clock.now());
    if (!row) throw notFound('Feedback not found');
    this.events.publish('feedback.submitted', feedbackEvent(row));
    return row;
  }
}
