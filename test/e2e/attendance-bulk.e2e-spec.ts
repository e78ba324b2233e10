import { TestApp } from '../support/app';
import { type Member, startAttendanceApp, storedMarksOf, UNKNOWN_ID } from '../support/attendance';

/** POST /attendance/bulk: a manager or an admin marks one slot for many members at once. */
describe('Attendance: bulk marking', () => {
  let t: TestApp;
  let admin: string;
  let manager: Member;
  let treasurer: Member;
  let asha: Member;
  let pendingId: string;

  /** Counts the stored marks of one member, straight from the database. */
  const storedMarks = (userId: string, date?: string): Promise<number> => storedMarksOf(t, userId, date);

  // Start-up (migrations) gets room on a busy machine.
  beforeAll(async () => {
    ({ t, admin, manager, treasurer, asha, pendingId } = await startAttendanceApp());
  }, 90_000);
  afterAll(() => t?.close());

  describe('guards', () => {
    it('answers 403 Forbidden to students and treasurers on bulk marking', async () => {
      const body = {
        date: '2025-03-14',
        mealType: 'Dinner',
        marks: [{ userId: asha.id, status: 'present' }],
      };
      for (const token of [asha.token, treasurer.token]) {
        const res = await t.post('/attendance/bulk', body, { token });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ error: 'Forbidden' });
      }
      expect(await storedMarks(asha.id, '2025-03-14')).toBe(0);
    });
  });

  describe('POST /attendance/bulk', () => {
    let members: Member[];
    beforeAll(async () => {
      members = [];
      for (let i = 0; i < 4; i += 1) members.push(await t.member());
    });

    const countOn = async (date: string) => {
      const res = await t.get(`/attendance?date=${date}`, { token: admin });
      return res.body.pagination.total as number;
    };

    it('marks a slot for many members, then changes and re-states them', async () => {
      const date = '2025-04-01';
      const first = await t.post(
        '/attendance/bulk',
        {
          date,
          mealType: 'Dinner',
          marks: members.slice(0, 3).map((m) => ({ userId: m.id, status: 'present' })),
        },
        { token: manager.token },
      );
      expect(first.status).toBe(201);
      expect(first.body.success).toBe(true);
      expect(first.body.summary).toEqual({ created: 3, updated: 0, unchanged: 0 });
      expect(first.body.attendance.map((a: { userId: string }) => a.userId)).toEqual(
        members.slice(0, 3).map((m) => m.id),
      );
      expect(first.body.attendance[0]).toMatchObject({
        date,
        mealType: 'Dinner',
        status: 'present',
        markedBy: manager.id,
      });

      const second = await t.post(
        '/attendance/bulk',
        {
          date,
          mealType: 'Dinner',
          marks: [
            { userId: members[0].id, status: 'absent' },
            { userId: members[1].id, status: 'present' },
            { userId: members[3].id, status: 'absent' },
          ],
        },
        { token: admin },
      );
      expect(second.status).toBe(201);
      expect(second.body.summary).toEqual({ created: 1, updated: 1, unchanged: 1 });
      expect(second.body.attendance.map((a: { status: string }) => a.status)).toEqual([
        'absent',
        'present',
        'absent',
      ]);

      const again = await t.post(
        '/attendance/bulk',
        { date, mealType: 'Dinner', marks: [{ userId: members[0].id, status: 'absent' }] },
        { token: manager.token },
      );
      expect(again.status).toBe(200);
      expect(again.body.summary).toEqual({ created: 0, updated: 0, unchanged: 1 });
      expect(await countOn(date)).toBe(4);
    });

    it('writes nothing when one entry is bad, and names every bad entry', async () => {
      const date = '2025-04-02';
      const res = await t.post(
        '/attendance/bulk',
        {
          date,
          mealType: 'Dinner',
          marks: [
            { userId: members[0].id, status: 'present' },
            { userId: pendingId, status: 'present' },
            { userId: members[1].id, status: 'present' },
            { userId: UNKNOWN_ID, status: 'present' },
            { userId: members[0].id, status: 'absent' },
          ],
        },
        { token: manager.token },
      );
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        error: 'Validation failed',
        details: [
          { field: 'marks.1.userId', message: 'the member is pending, not approved' },
          { field: 'marks.3.userId', message: 'no member has this id' },
          { field: 'marks.4.userId', message: 'this member is already marked at marks.0' },
        ],
      });
      expect(await countOn(date)).toBe(0);
    });

    it('answers a bulk repeat into a closed month with 200, changing nothing; any change is 409', async () => {
      const slot = { date: '2024-10-07', mealType: 'Dinner' };
      const marks = [
        { userId: members[0].id, status: 'present' },
        { userId: members[1].id, status: 'absent' },
      ];
      const first = await t.post('/attendance/bulk', { ...slot, marks }, { token: manager.token });
      expect(first.status).toBe(201);
      const close = await t.post('/analytics/months/2024-10/close', undefined, { token: treasurer.token });
      expect(close.status).toBe(200);
      try {
        const repeat = await t.post('/attendance/bulk', { ...slot, marks }, { token: manager.token });
        expect(repeat.status).toBe(200);
        expect(repeat.body).toEqual({
          success: true,
          attendance: first.body.attendance,
          summary: { created: 0, updated: 0, unchanged: 2 },
        });
        // In another order, by an admin: still nothing to change.
        const reordered = await t.post(
          '/attendance/bulk',
          { ...slot, marks: [marks[1], marks[0]] },
          { token: admin },
        );
        expect(reordered.status).toBe(200);
        expect(reordered.body.attendance).toEqual([first.body.attendance[1], first.body.attendance[0]]);

        const frozen = /Month 2024-10 is closed/;
        const changed = await t.post(
          '/attendance/bulk',
          { ...slot, marks: [marks[0], { userId: members[1].id, status: 'present' }] },
          { token: manager.token },
        );
        expect(changed.status).toBe(409);
        expect(changed.body.error).toMatch(frozen);
        const added = await t.post(
          '/attendance/bulk',
          { ...slot, marks: [...marks, { userId: members[2].id, status: 'present' }] },
          { token: manager.token },
        );
        expect(added.status).toBe(409);
        expect(added.body.error).toMatch(frozen);
        expect(await countOn(slot.date)).toBe(2);
      } finally {
        expect((await t.post('/analytics/months/2024-10/reopen', undefined, { token: admin })).status).toBe(
          200,
        );
      }
    });

    it.each([
      [
        'a bad status in one entry',
        {
          marks: [
            { userId: UNKNOWN_ID, status: 'present' },
            { userId: UNKNOWN_ID, status: 'maybe' },
          ],
        },
        ['marks.1.status'],
      ],
      ['a malformed userId', { marks: [{ userId: 'abc', status: 'present' }] }, ['marks.0.userId']],
      [
        'an unknown field in an entry',
        { marks: [{ userId: UNKNOWN_ID, status: 'present', x: 1 }] },
        ['marks.0.x'],
      ],
      ['no marks', { marks: [] }, ['marks']],
      ['marks that are not a list', { marks: 'all' }, ['marks']],
      [
        'more than 500 marks',
        { marks: Array.from({ length: 501 }, () => ({ userId: UNKNOWN_ID, status: 'present' })) },
        ['marks'],
      ],
      [
        'an unknown meal type',
        { mealType: 'Lunch', marks: [{ userId: UNKNOWN_ID, status: 'present' }] },
        ['mealType'],
      ],
      [
        'a date that does not exist',
        { date: '2025-04-31', marks: [{ userId: UNKNOWN_ID, status: 'present' }] },
        ['date'],
      ],
    ])('400 for %s', async (_case, override, fields) => {
      const body = { date: '2025-04-03', mealType: 'Dinner', ...override };
      const res = await t.post('/attendance/bulk', body, { token: manager.token });
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(fields);
      expect(await countOn('2025-04-03')).toBe(0);
    });
  });
});
