import { eq } from 'drizzle-orm';
import { FeedbackModule, FeedbackQueries } from '../../../src/modules/feedback';
import {
  ListFeedbackQuery,
  SubmitFeedbackDto,
  UpdateFeedbackDto,
} from '../../../src/modules/feedback/dto/feedback.requests';
import { FEEDBACK_GIVEN } from '../../../src/modules/feedback/feedback.errors';
import { feedback } from '../../../src/modules/feedback/feedback.schema';
import { FeedbackService } from '../../../src/modules/feedback/feedback.service';
import { type MediumContext, type MediumMember, newMedium } from '../medium.factory';

/**
 * Feedback's internals, called directly: the domain event its writes publish (after commit, on creation and on a
 * change only) and the averages other modules read. What /feedback answers: test/e2e/feedback.e2e-spec.ts.
 */
describe('Feedback (medium)', () => {
  let ctx: MediumContext;

  // The default configuration (no setup): Breakfast, Lunch and Dinner.
  beforeAll(async () => {
    ctx = await newMedium({ imports: [FeedbackModule] });
  });
  afterAll(() => ctx?.close());

  it('publishes FeedbackSubmitted after commit, on creation and on a change only', async () => {
    const member = await ctx.newMember();
    const service = ctx.get(FeedbackService);
    // Reads the rating on its own connection the moment the event arrives, in the event's mess as a listener does:
    // it must already be committed.
    const recording = ctx.recordEvents(['feedback.submitted'], (event) =>
      ctx.inMess(event.messId, () =>
        ctx.db
          .select({ rating: feedback.rating })
          .from(feedback)
          .where(eq(feedback.id, event.feedbackId))
          .then((rows) => rows[0]?.rating),
      ),
    );
    const events = () => recording.received.map((r) => r.payload);
    const seen = () => recording.received.map((r) => r.read);
    try {
      const body = await ctx.dto(SubmitFeedbackDto, { date: '2025-02-01', mealType: 'Lunch', rating: 2 });
      const created = await service.submit(member.caller, body);
      const id = created.id;
      const second = await ctx.refusal(service.submit(member.caller, body));
      // the 409 names the feedback to change
      expect([second.status, second.body]).toEqual([
        409,
        { success: false, error: FEEDBACK_GIVEN, existingId: id },
      ]);
      await service.update(member.caller, id, await ctx.dto(UpdateFeedbackDto, { rating: 2 })); // no change: no event
      await service.update(member.caller, id, await ctx.dto(UpdateFeedbackDto, { rating: 4 }));
      // refused (over HTTP by the body's validation; here by the table's check): no event
      await expect(service.update(member.caller, id, { rating: 9 })).rejects.toThrow();
      expect(events()).toEqual([
        {
          feedbackId: id,
          userId: member.id,
          date: '2025-02-01',
          mealType: 'Lunch',
          rating: 2,
          messId: ctx.messId,
        },
        {
          feedbackId: id,
          userId: member.id,
          date: '2025-02-01',
          mealType: 'Lunch',
          rating: 4,
          messId: ctx.messId,
        },
      ]);
      expect(await Promise.all(seen())).toEqual([2, 4]);
    } finally {
      recording.stop();
    }
  });

  it('averages ratings over a range with FeedbackQueries', async () => {
    const [x, y] = [await ctx.newMember(), await ctx.newMember()];
    for (const [member, date, mealType, rating] of [
      [x, '2024-07-31', 'Lunch', 1], // outside the range
      [x, '2024-08-01', 'Lunch', 5],
      [y, '2024-08-01', 'Lunch', 4],
      [x, '2024-08-31', 'Dinner', 2],
      [y, '2024-09-01', 'Dinner', 1], // outside the range
    ] as const) {
      await ctx.newFeedback({ userId: member.id, date, mealType, rating });
    }
    const queries = ctx.get(FeedbackQueries);
    const august = await queries.averageRating('2024-08-01', '2024-08-31');
    expect(august.count).toBe(3);
    expect(august.average).toBeCloseTo(11 / 3, 10);
    expect(await queries.averageRating('2020-01-01', '2020-12-31')).toEqual({ average: null, count: 0 });
    expect(await queries.averageRatingByMealType('2024-08-01', '2024-08-31')).toEqual([
      { mealType: 'Dinner', average: 2, count: 1 },
      { mealType: 'Lunch', average: 4.5, count: 2 },
    ]);
  });
  describe('two messes', () => {
    let inB: MediumContext;
    let bMember: MediumMember;
    let bFeedbackId: string;
    const stored = (at: MediumContext, id: string) =>
      at.inMess(at.messId, () => ctx.db.select().from(feedback).where(eq(feedback.id, id)).execute());

    beforeAll(async () => {
      inB = ctx.as(ctx.messes.b);
      bMember = await inB.newMember('student', { fullName: 'Bindu Student' });
      // Supper is B's meal time only (A keeps the defaults)
      bFeedbackId = (
        await inB.get(FeedbackService).submit(
          bMember.caller,
          await inB.dto(SubmitFeedbackDto, {
            date: '2023-11-05',
            mealType: 'Supper',
            rating: 1,
            comment: 'B',
          }),
        )
      ).id;
    });

    it("A's lists and averages never count B's feedback; B's do", async () => {
      const aAdmin = await ctx.newMember('admin');
      const query = { date: '2023-11-05' };
      const listB = await inB
        .get(FeedbackService)
        .list(ctx.messes.b.admin!.caller, await inB.dto(ListFeedbackQuery, query));
      expect(listB.rows.map((r) => r.id)).toEqual([bFeedbackId]);
      const listA = await ctx
        .get(FeedbackService)
        .list(aAdmin.caller, await ctx.dto(ListFeedbackQuery, query));
      expect(listA).toEqual({ rows: [], total: 0 });

      expect(await inB.get(FeedbackQueries).averageRating('2023-11-01', '2023-11-30')).toEqual({
        average: 1,
        count: 1,
      });
      expect(await ctx.get(FeedbackQueries).averageRating('2023-11-01', '2023-11-30')).toEqual({
        average: null,
        count: 0,
      });
      expect(await ctx.get(FeedbackQueries).averageRatingByMealType('2023-11-01', '2023-11-30')).toEqual([]);
    });

    it("A's admin cannot change B's feedback (404), which is unchanged in B", async () => {
      const aAdmin = await ctx.newMember('admin');
      const refused = await ctx.refusal(
        ctx
          .get(FeedbackService)
          .update(aAdmin.caller, bFeedbackId, await ctx.dto(UpdateFeedbackDto, { rating: 5, comment: 'A' })),
      );
      expect(refused.status).toBe(404);
      expect(await stored(inB, bFeedbackId)).toEqual([
        expect.objectContaining({ rating: 1, comment: 'B', mealType: 'Supper' }),
      ]);
      expect(await stored(ctx, bFeedbackId)).toEqual([]);
      // and a meal type of B's is no meal type of A's
      const supper = await ctx.refusal(
        ctx.get(FeedbackService).submit(aAdmin.caller, { date: '2023-11-05', mealType: 'Supper', rating: 3 }),
      );
      expect(supper.status).toBe(400);
    });
  });
});
