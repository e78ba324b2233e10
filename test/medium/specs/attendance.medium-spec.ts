import { eq, sql } from 'drizzle-orm';
import { inTransaction } from '../../../src/database/transactions';
import { AttendanceModule, AttendanceQueries, AttendanceService } from '../../../src/modules/attendance';
import { attendance } from '../../../src/modules/attendance/attendance.schema';
import { BulkMarkingService } from '../../../src/modules/attendance/bulk-marking.service';
import { SlotWriter } from '../../../src/modules/attendance/slot-writer';
import { MessConfigService } from '../../../src/modules/mess-config';
import { OutboxRelay } from '../../../src/modules/outbox';
// The table itself, for the test's own reads (the outbox module exports no table).
import { outboxEvents } from '../../../src/modules/outbox/outbox.schema';
import {
  BulkAttendanceDto,
  ListAttendanceQuery,
  MarkAttendanceDto,
} from '../../../src/modules/attendance/dto/attendance.requests';
import { type MediumContext, type MediumMember, newMedium } from '../medium.factory';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/**
 * Attendance's internals, called directly: the domain events its writes publish (after commit, one per written
 * mark) and the read-only queries other modules use. What POST, PUT and GET /attendance answer: test/e2e/attendance-*.
 */
describe('Attendance (medium)', () => {
  let ctx: MediumContext;
  let manager: MediumMember;

  beforeAll(async () => {
    ctx = await newMedium({ imports: [AttendanceModule] });
    const admin = await ctx.newMember('admin');
    // The stored configuration decides the meal types: Snacks is one, Lunch is not.
    await ctx.setUpMess(admin, {
      expenseCategories: ['Groceries'],
      mealTimes: [
        { name: 'Breakfast', startTime: '07:30', endTime: '09:30' },
        { name: 'Snacks', startTime: '16:30', endTime: '17:30' },
        { name: 'Dinner', startTime: '19:30', endTime: '21:30' },
      ],
    });
    manager = await ctx.newMember('manager', { fullName: 'Meera Manager' });
  });
  afterAll(() => ctx?.close());

  const mark = async (member: MediumMember, body: object) =>
    ctx.get(AttendanceService).mark(member.caller, await ctx.dto(MarkAttendanceDto, body));
  const markMany = async (member: MediumMember, body: object) =>
    ctx.get(BulkMarkingService).markMany(member.caller, await ctx.dto(BulkAttendanceDto, body));
  const changeStatus = (member: MediumMember, id: string, status: 'present' | 'absent') =>
    ctx.get(AttendanceService).changeStatus(member.caller, id, status);

  describe('domain events', () => {
    let recording: ReturnType<typeof startRecording>;
    const startRecording = () =>
      // Reads the row on its own connection the moment the event arrives, in the event's mess as a listener does:
      // it must already be committed.
      ctx.recordEvents(['attendance.marked'], (event) =>
        ctx.inMess(event.messId, () =>
          ctx.db
            .select({ status: attendance.status })
            .from(attendance)
            .where(eq(attendance.id, event.attendanceId))
            .then((rows) => rows[0]?.status),
        ),
      );
    beforeEach(() => {
      recording = startRecording();
    });
    afterEach(() => recording.stop());
    const events = () => recording.received.map((r) => r.payload);
    const checks = () => recording.received.map((r) => r.read);

    it('publishes one event per written mark, after commit, with the previous status on a change', async () => {
      const member = await ctx.newMember();
      const slot = { date: '2025-05-01', mealType: 'Breakfast' };
      const created = await mark(member, { ...slot, status: 'present' });
      await mark(member, { ...slot, status: 'present' }); // re-stated: no event
      await mark(member, { ...slot, status: 'absent' });
      await changeStatus(member, created.row.id, 'absent'); // no change
      await changeStatus(manager, created.row.id, 'present');
      expect(events()).toEqual([
        {
          attendanceId: created.row.id,
          userId: member.id,
          date: '2025-05-01',
          mealType: 'Breakfast',
          status: 'present',
          actorId: member.id,
          month: '2025-05',
          markedAt: expect.any(String),
          // 2025 is long past: the mark was written after its meal (its alert is the durable event's)
          afterMeal: true,
          messId: ctx.messId,
        },
        expect.objectContaining({ status: 'absent', previousStatus: 'present', actorId: member.id }),
        expect.objectContaining({ status: 'present', previousStatus: 'absent', actorId: manager.id }),
      ]);
      expect(events()[0]).not.toHaveProperty('previousStatus');
      // each listener saw its own write already committed
      expect(await Promise.all(checks())).toEqual(['present', 'absent', 'present']);
    });

    it('publishes one event per created or changed row of a bulk request, and none for a refused one', async () => {
      const [a, b] = [await ctx.newMember(), await ctx.newMember()];
      await mark(a, { date: '2025-05-02', mealType: 'Dinner', status: 'present' });
      recording.received.length = 0;
      const outcome = await markMany(manager, {
        date: '2025-05-02',
        mealType: 'Dinner',
        marks: [
          { userId: a.id, status: 'present' },
          { userId: b.id, status: 'absent' },
        ],
      });
      // a mark was created: the controller answers 201
      expect(outcome.created).toBeGreaterThan(0);
      expect(events()).toEqual([
        expect.objectContaining({ userId: b.id, status: 'absent', actorId: manager.id, inBulk: true }),
      ]);
      expect(await Promise.all(checks())).toEqual(['absent']);

      const refused = await ctx.refusal(
        markMany(manager, {
          date: '2025-05-02',
          mealType: 'Dinner',
          marks: [
            { userId: a.id, status: 'absent' },
            { userId: UNKNOWN_ID, status: 'absent' },
          ],
        }),
      );
      expect(refused.status).toBe(400);
      expect(events()).toHaveLength(1);
    });
  });

  describe("the durable DISCREPANCY_ALERT event ('attendance.discrepancy')", () => {
    /** The mess's 'attendance.discrepancy' outbox rows naming this mark, read on `db` (a transaction's, or not). */
    const discrepancyRows = (attendanceId: string, db = ctx.db) =>
      ctx.inMess(ctx.messId, () =>
        db
          .select()
          .from(outboxEvents)
          .where(
            sql`${outboxEvents.name} = 'attendance.discrepancy' and ${outboxEvents.payload}->'marks' @> ${JSON.stringify([{ attendanceId }])}::jsonb`,
          ),
      );
    const breakfast = async () =>
      (await ctx.get(MessConfigService).settings()).mealTimes.find((m) => m.name === 'Breakfast');

    it('is written in the transaction of a mark made after the meal, and goes with it when it rolls back', async () => {
      const member = await ctx.newMember();
      const meal = await breakfast();
      const slotMark = {
        userId: member.id,
        date: '2025-06-01',
        mealType: 'Breakfast',
        status: 'present' as const,
        source: 'mess' as const,
        markedBy: manager.id,
        markedAt: new Date(),
      };
      // inside the mark's transaction, before its commit: the mark and its event, together
      const rolledBack = await ctx
        .inMess(ctx.messId, () =>
          inTransaction(ctx.db, async (tx) => {
            const [written] = await ctx.get(SlotWriter).write([slotMark], meal, 'mess', tx);
            expect(written.afterMeal).toBe(true);
            const [row] = await discrepancyRows(written.id, tx);
            expect(row.payload).toMatchObject({
              messId: ctx.messId,
              date: '2025-06-01',
              mealType: 'Breakfast',
              actorId: manager.id,
              markedAt: slotMark.markedAt.toISOString(),
              reason: 'after-meal',
              marks: [
                { attendanceId: written.id, userId: member.id, status: 'present', actorId: manager.id },
              ],
            });
            throw Object.assign(new Error('the change failed'), { id: written.id });
          }),
        )
        .catch((error: { id: string }) => error.id);
      // rolled back: neither the mark nor its event
      expect(
        await ctx.inMess(ctx.messId, () =>
          ctx.db.select().from(attendance).where(eq(attendance.id, rolledBack)),
        ),
      ).toEqual([]);
      expect(await discrepancyRows(rolledBack)).toEqual([]);

      // committed (the service's own transaction): one row, handed on by the relay
      const { row } = await mark(manager, {
        date: '2025-06-01',
        mealType: 'Breakfast',
        userId: member.id,
        status: 'present',
      });
      await ctx.get(OutboxRelay).idle();
      expect(await discrepancyRows(row.id)).toEqual([
        expect.objectContaining({
          messId: ctx.messId,
          name: 'attendance.discrepancy',
          doneAt: expect.any(Date),
        }),
      ]);
    });

    it('is one row for a bulk request after the meal, and none for a mark before the meal ends', async () => {
      const [a, b, c] = [await ctx.newMember(), await ctx.newMember(), await ctx.newMember()];
      const bulk = await markMany(manager, {
        date: '2025-06-02',
        mealType: 'Dinner',
        marks: [
          { userId: a.id, status: 'present' },
          { userId: b.id, status: 'absent' },
        ],
      });
      const [first] = await discrepancyRows(bulk.rows[0].id);
      // the same row (the relay may be handing it on meanwhile)
      expect((await discrepancyRows(bulk.rows[1].id)).map((row) => row.id)).toEqual([first.id]);
      expect((first.payload as { marks: unknown[] }).marks).toHaveLength(2);

      // an ordinary mark (a meal not yet ended: next year's) writes no outbox row
      const nextYear = `${new Date().getUTCFullYear() + 1}-06-01`;
      const ordinary = await mark(c, { date: nextYear, mealType: 'Breakfast', status: 'present' });
      expect(ordinary.row).not.toHaveProperty('afterMeal');
      expect(await discrepancyRows(ordinary.row.id)).toEqual([]);
    });
  });

  describe('AttendanceQueries', () => {
    it('aggregates a month and a range in single queries', async () => {
      const [x, y] = [await ctx.newMember(), await ctx.newMember()];
      const marks: [MediumMember, string, string, 'present' | 'absent'][] = [
        [x, '2024-06-30', 'Breakfast', 'present'], // the month before: left out
        [x, '2024-07-01', 'Breakfast', 'present'],
        [x, '2024-07-01', 'Dinner', 'present'],
        [x, '2024-07-31', 'Snacks', 'absent'],
        [y, '2024-07-15', 'Dinner', 'present'],
        [y, '2024-07-16', 'Dinner', 'absent'],
        [y, '2024-08-01', 'Dinner', 'present'], // the month after: left out
      ];
      for (const [member, date, mealType, status] of marks) {
        await ctx.newMark({ userId: member.id, date, mealType, status });
      }
      const queries = ctx.get(AttendanceQueries);
      expect(await queries.presentCountsByMember('2024-07')).toEqual(
        [
          { userId: x.id, meals: 2 },
          { userId: y.id, meals: 1 },
        ].sort((p, q) => (p.userId < q.userId ? -1 : 1)),
      );
      expect(await queries.presentCountsByMealType('2024-07-01', '2024-07-31')).toEqual([
        { mealType: 'Breakfast', present: 1, absent: 0 },
        { mealType: 'Dinner', present: 2, absent: 1 },
        { mealType: 'Snacks', present: 0, absent: 1 },
      ]);
      // Dinner was served on 1 and 15 July (16 July had only an absence), Breakfast on 1 July, Snacks never
      expect(await queries.servedSlotsByMealType('2024-07-01', '2024-07-31')).toEqual([
        { mealType: 'Breakfast', slots: 1 },
        { mealType: 'Dinner', slots: 2 },
      ]);
      expect(await queries.totals('2024-07-01', '2024-07-31')).toEqual({
        present: 3,
        absent: 2,
        activeMembers: 2,
      });
      expect(await queries.totals('2023-01-01', '2023-01-31')).toEqual({
        present: 0,
        absent: 0,
        activeMembers: 0,
      });
      expect(await queries.markedUserIds('2024-07-01', 'Dinner')).toEqual([x.id]);
      expect(await queries.markedUserIds('2024-07-02', 'Dinner')).toEqual([]);
    });
  });
  describe('two messes', () => {
    let inB: MediumContext;
    let bMember: MediumMember;
    let bManager: MediumMember;
    let bMarkId: string;
    const stored = (at: MediumContext, id: string) =>
      at.inMess(at.messId, () => ctx.db.select().from(attendance).where(eq(attendance.id, id)).execute());

    beforeAll(async () => {
      inB = ctx.as(ctx.messes.b);
      bMember = await inB.newMember('student', { fullName: 'Bhavna Student' });
      bManager = await inB.newMember('manager');
      // Breakfast is a meal time of both messes; 2024-09 is this describe's alone
      bMarkId = (
        await inB.get(AttendanceService).mark(
          bMember.caller,
          await inB.dto(MarkAttendanceDto, {
            date: '2024-09-10',
            mealType: 'Breakfast',
            status: 'present',
          }),
        )
      ).row.id;
    });

    it("A's lists and aggregates never count B's marks; B's do", async () => {
      const aMember = await ctx.newMember();
      await ctx.newMark({ userId: aMember.id, date: '2024-09-10', mealType: 'Breakfast', status: 'absent' });
      const query = { date: '2024-09-10' };
      const listB = await inB
        .get(AttendanceService)
        .list(bManager.caller, await inB.dto(ListAttendanceQuery, query));
      expect(listB.rows.map((r) => r.id)).toEqual([bMarkId]);
      const listA = await ctx
        .get(AttendanceService)
        .list(manager.caller, await ctx.dto(ListAttendanceQuery, query));
      expect(listA.rows.map((r) => r.userId)).toEqual([aMember.id]);

      expect(await inB.get(AttendanceQueries).presentCountsByMember('2024-09')).toEqual([
        { userId: bMember.id, meals: 1 },
      ]);
      expect(await ctx.get(AttendanceQueries).presentCountsByMember('2024-09')).toEqual([]);
      expect(await ctx.get(AttendanceQueries).totals('2024-09-01', '2024-09-30')).toEqual({
        present: 0,
        absent: 1,
        activeMembers: 0,
      });
      expect(await inB.get(AttendanceQueries).totals('2024-09-01', '2024-09-30')).toEqual({
        present: 1,
        absent: 0,
        activeMembers: 1,
      });
      expect(await ctx.get(AttendanceQueries).markedUserIds('2024-09-10', 'Breakfast')).toEqual([aMember.id]);
      expect(await inB.get(AttendanceQueries).markedUserIds('2024-09-10', 'Breakfast')).toEqual([bMember.id]);
    });

    it("A's manager neither changes B's mark (404) nor marks B's member (404, 400 in bulk)", async () => {
      expect((await ctx.refusal(changeStatus(manager, bMarkId, 'absent'))).status).toBe(404);
      const single = await ctx.refusal(
        mark(manager, { userId: bMember.id, date: '2024-09-11', mealType: 'Breakfast', status: 'absent' }),
      );
      expect(single.status).toBe(404);
      const bulk = await ctx.refusal(
        markMany(manager, {
          date: '2024-09-11',
          mealType: 'Breakfast',
          marks: [{ userId: bMember.id, status: 'absent' }],
        }),
      );
      expect(bulk.status).toBe(400);
      expect(await stored(inB, bMarkId)).toEqual([
        expect.objectContaining({ userId: bMember.id, status: 'present', markedBy: bMember.id }),
      ]);
      expect(await stored(ctx, bMarkId)).toEqual([]);
      expect(await inB.get(AttendanceQueries).markedUserIds('2024-09-11', 'Breakfast')).toEqual([]);
    });
  });
});
