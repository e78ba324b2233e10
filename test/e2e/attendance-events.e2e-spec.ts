import { EventEmitter2 } from '@nestjs/event-emitter';
import { eq } from 'drizzle-orm';
import type { AttendanceEvent } from '../../src/common/events/event-map';
import { Database } from '../../src/database/database';
import { AttendanceQueries } from '../../src/modules/attendance/attendance.queries';
import { attendance } from '../../src/modules/attendance/attendance.schema';
import { TestApp } from '../support/app';
import { type Member, startAttendanceApp, UNKNOWN_ID } from '../support/attendance';

/** The domain events attendance publishes and the read-only queries other modules use. */
describe('Attendance: events and queries', () => {
  let t: TestApp;
  let manager: Member;

  // Start-up (migrations) gets room on a busy machine.
  beforeAll(async () => {
    ({ t, manager } = await startAttendanceApp());
  }, 90_000);
  afterAll(() => t?.close());

  describe('domain events', () => {
    let events: AttendanceEvent[];
    let checks: Promise<unknown>[];
    let listener: (event: AttendanceEvent) => void;
    const emitter = () => t.app.get(EventEmitter2);

    beforeEach(() => {
      events = [];
      checks = [];
      // Reads the row on its own connection the moment the event arrives: it must already be committed.
      listener = (event) => {
        events.push(event);
        checks.push(
          t.app
            .get(Database)
            .db.select({ status: attendance.status })
            .from(attendance)
            .where(eq(attendance.id, event.attendanceId))
            .then((rows) => rows[0]?.status),
        );
      };
      emitter().on('attendance.marked', listener);
    });
    afterEach(() => {
      emitter().off('attendance.marked', listener);
    });

    it('publishes one event per written mark, after commit, with the previous status on a change', async () => {
      const member = await t.member();
      const slot = { date: '2025-05-01', mealType: 'Breakfast' };
      const created = await t.post('/attendance', { ...slot, status: 'present' }, { token: member.token });
      await t.post('/attendance', { ...slot, status: 'present' }, { token: member.token }); // re-stated: no event
      await t.post('/attendance', { ...slot, status: 'absent' }, { token: member.token });
      await t.put(
        `/attendance/${created.body.attendance._id}`,
        { status: 'absent' },
        { token: member.token },
      ); // no change
      await t.put(
        `/attendance/${created.body.attendance._id}`,
        { status: 'present' },
        { token: manager.token },
      );
      expect(events).toEqual([
        {
          attendanceId: created.body.attendance._id,
          userId: member.id,
          date: '2025-05-01',
          mealType: 'Breakfast',
          status: 'present',
          actorId: member.id,
          month: '2025-05',
          markedAt: expect.any(String),
        },
        expect.objectContaining({ status: 'absent', previousStatus: 'present', actorId: member.id }),
        expect.objectContaining({ status: 'present', previousStatus: 'absent', actorId: manager.id }),
      ]);
      expect(events[0]).not.toHaveProperty('previousStatus');
      // each listener saw its own write already committed
      expect(await Promise.all(checks)).toEqual(['present', 'absent', 'present']);
    });

    it('publishes one event per created or changed row of a bulk request, and none for a refused one', async () => {
      const [a, b] = [await t.member(), await t.member()];
      await t.post(
        '/attendance',
        { date: '2025-05-02', mealType: 'Dinner', status: 'present' },
        { token: a.token },
      );
      events.length = 0;
      checks.length = 0;
      const res = await t.post(
        '/attendance/bulk',
        {
          date: '2025-05-02',
          mealType: 'Dinner',
          marks: [
            { userId: a.id, status: 'present' },
            { userId: b.id, status: 'absent' },
          ],
        },
        { token: manager.token },
      );
      expect(res.status).toBe(201);
      expect(events).toEqual([
        expect.objectContaining({ userId: b.id, status: 'absent', actorId: manager.id, inBulk: true }),
      ]);
      expect(await Promise.all(checks)).toEqual(['absent']);

      const refused = await t.post(
        '/attendance/bulk',
        {
          date: '2025-05-02',
          mealType: 'Dinner',
          marks: [
            { userId: a.id, status: 'absent' },
            { userId: UNKNOWN_ID, status: 'absent' },
          ],
        },
        { token: manager.token },
      );
      expect(refused.status).toBe(400);
      expect(events).toHaveLength(1);
    });
  });

  describe('AttendanceQueries', () => {
    it('aggregates a month and a range in single queries', async () => {
      const [x, y] = [await t.member(), await t.member()];
      const marks: [Member, string, string, string][] = [
        [x, '2024-06-30', 'Breakfast', 'present'], // the month before: left out
        [x, '2024-07-01', 'Breakfast', 'present'],
        [x, '2024-07-01', 'Dinner', 'present'],
        [x, '2024-07-31', 'Snacks', 'absent'],
        [y, '2024-07-15', 'Dinner', 'present'],
        [y, '2024-07-16', 'Dinner', 'absent'],
        [y, '2024-08-01', 'Dinner', 'present'], // the month after: left out
      ];
      for (const [member, date, mealType, status] of marks) {
        const res = await t.post('/attendance', { date, mealType, status }, { token: member.token });
        expect(res.status).toBe(201);
      }
      const queries = t.app.get(AttendanceQueries);
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
});
