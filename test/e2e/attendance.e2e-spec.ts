import { EventEmitter2 } from '@nestjs/event-emitter';
import { and, count, eq } from 'drizzle-orm';
import type { AttendanceEvent } from '../../src/common/events/event-map';

import { Database } from '../../src/database/database';
import { AttendanceQueries } from '../../src/modules/attendance/attendance.queries';
import { attendance } from '../../src/modules/attendance/attendance.schema';
import { TestApp } from '../support/app';

type Member = Awaited<ReturnType<TestApp['member']>>;

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('Attendance', () => {
  let t: TestApp;
  let admin: string;
  let manager: Member;
  let treasurer: Member;
  let asha: Member;
  let ravi: Member;
  let pendingId: string;

  /** Counts the stored marks of one member, straight from the database. */
  const storedMarks = async (userId: string, date?: string): Promise<number> => {
    const [{ n }] = await t.app
      .get(Database)
      .db.select({ n: count() })
      .from(attendance)
      .where(and(eq(attendance.userId, userId), date ? eq(attendance.date, date) : undefined));
    return n;
  };

  // Start-up (migrations) and the sign-ups (bcrypt) get room on a busy machine.
  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.adminToken();
    // The stored configuration decides the meal types: Snacks is one, Lunch is not.
    const setup = await t.post(
      '/auth/admin/setup',
      {
        messName: 'Hostel 7 Mess',
        email: 'mess@college.edu',
        phone: '+91-8012345678',
        expenseCategories: ['Groceries'],
        mealTimes: [
          { name: 'Breakfast', startTime: '07:30', endTime: '09:30' },
          { name: 'Snacks', startTime: '16:30', endTime: '17:30' },
          { name: 'Dinner', startTime: '19:30', endTime: '21:30' },
        ],
      },
      { token: admin },
    );
    expect(setup.status).toBe(200);
    manager = await t.member('manager', { fullName: 'Meera Manager' });
    treasurer = await t.member('treasurer', { fullName: 'Tara Treasurer' });
    asha = await t.member('student', { fullName: 'Asha Verma' });
    ravi = await t.member('student', { fullName: 'Ravi Kumar' });
    const pending = await t.post('/auth/register', {
      email: 'pending-attendance@test.local',
      password: 'pending-password',
      fullName: 'Pending Person',
      collegeId: 'P1',
      room: 'P-1',
      phone: '9000000101',
    });
    pendingId = pending.body.userId;
  }, 90_000);
  afterAll(() => t?.close());

  describe('guards', () => {
    it('answers 401 No token on every route without a token', async () => {
      for (const res of [
        await t.get('/attendance'),
        await t.post('/attendance', { date: '2025-03-14', mealType: 'Dinner', status: 'present' }),
        await t.post('/attendance/bulk', { date: '2025-03-14', mealType: 'Dinner', marks: [] }),
        await t.put(`/attendance/${UNKNOWN_ID}`, { status: 'absent' }),
      ]) {
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'No token' });
      }
    });

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

  it('walks one mark from creation through re-statement, change and listing', async () => {
    const slot = { date: '2025-03-10', mealType: 'Breakfast' };
    const created = await t.post('/attendance', { ...slot, status: 'present' }, { token: asha.token });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      attendance: {
        _id: expect.any(String),
        userId: asha.id,
        date: '2025-03-10',
        mealType: 'Breakfast',
        status: 'present',
        markedAt: expect.any(String),
        markedBy: asha.id,
        source: 'member',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    const mark = created.body.attendance;

    // the same mark again: 200, the same record, nothing rewritten
    const restated = await t.post('/attendance', { ...slot, status: 'present' }, { token: asha.token });
    expect(restated.status).toBe(200);
    expect(restated.body).toEqual(created.body);

    // a different status: 200, changed, markedAt moves
    const changed = await t.post('/attendance', { ...slot, status: 'absent' }, { token: asha.token });
    expect(changed.status).toBe(200);
    expect(changed.body.attendance).toMatchObject({ _id: mark._id, status: 'absent' });
    expect(Date.parse(changed.body.attendance.markedAt)).toBeGreaterThanOrEqual(Date.parse(mark.markedAt));
    expect(changed.body.attendance.createdAt).toBe(mark.createdAt);

    // naming yourself explicitly is the same as not naming anyone
    const self = await t.post(
      '/attendance',
      { ...slot, status: 'absent', userId: asha.id },
      { token: asha.token },
    );
    expect(self.status).toBe(200);
    expect(self.body.attendance._id).toBe(mark._id);

    // PUT by the owner
    const put = await t.put(`/attendance/${mark._id}`, { status: 'present' }, { token: asha.token });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      success: true,
      attendance: {
        ...changed.body.attendance,
        status: 'present',
        markedAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });

    const list = await t.get('/attendance?date=2025-03-10', { token: asha.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      success: true,
      attendance: [{ ...put.body.attendance, user: { _id: asha.id, fullName: 'Asha Verma' } }],
      pagination: { page: 1, limit: 100, total: 1 },
    });
    expect(await storedMarks(asha.id, '2025-03-10')).toBe(1);
  });

  describe('marking for someone else', () => {
    it('lets a manager and an admin mark for an approved member', async () => {
      const byManager = await t.post(
        '/attendance',
        { date: '2025-03-11', mealType: 'Dinner', status: 'present', userId: ravi.id },
        { token: manager.token },
      );
      expect(byManager.status).toBe(201);
      expect(byManager.body.attendance).toMatchObject({ userId: ravi.id, markedBy: manager.id });
      const byAdmin = await t.post(
        '/attendance',
        { date: '2025-03-11', mealType: 'Dinner', status: 'absent', userId: ravi.id },
        { token: admin },
      );
      expect(byAdmin.status).toBe(200);
      expect(byAdmin.body.attendance).toMatchObject({ _id: byManager.body.attendance._id, status: 'absent' });
    });

    it('refuses students and treasurers with 403, and writes nothing', async () => {
      for (const token of [asha.token, treasurer.token]) {
        const res = await t.post(
          '/attendance',
          { date: '2025-03-12', mealType: 'Dinner', status: 'present', userId: ravi.id },
          { token },
        );
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ success: false, error: 'You can only mark your own attendance' });
      }
      expect(await storedMarks(ravi.id, '2025-03-12')).toBe(0);
    });

    it('answers 404 for an unknown member and 400 for one not approved', async () => {
      const unknown = await t.post(
        '/attendance',
        { date: '2025-03-12', mealType: 'Dinner', status: 'present', userId: UNKNOWN_ID },
        { token: manager.token },
      );
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ success: false, error: 'User not found' });
      const pending = await t.post(
        '/attendance',
        { date: '2025-03-12', mealType: 'Dinner', status: 'present', userId: pendingId },
        { token: manager.token },
      );
      expect(pending.status).toBe(400);
      expect(pending.body.details).toEqual([
        { field: 'userId', message: 'the member is pending, not approved' },
      ]);
      expect(await storedMarks(pendingId)).toBe(0);
    });
  });

  describe('PUT /attendance/:id', () => {
    let markId: string;
    beforeAll(async () => {
      const res = await t.post(
        '/attendance',
        { date: '2025-03-13', mealType: 'Snacks', status: 'present' },
        { token: ravi.token },
      );
      markId = res.body.attendance._id;
    });

    it('lets the owner, a manager and an admin change the status', async () => {
      for (const [token, status] of [
        [ravi.token, 'absent'],
        [manager.token, 'present'],
        [admin, 'absent'],
      ]) {
        const res = await t.put(`/attendance/${markId}`, { status }, { token });
        expect(res.status).toBe(200);
        expect(res.body.success).toBe(true);
        expect(res.body.attendance).toMatchObject({ _id: markId, userId: ravi.id, status });
      }
    });

    it("refuses another student's or a treasurer's change with 403", async () => {
      for (const token of [asha.token, treasurer.token]) {
        const res = await t.put(`/attendance/${markId}`, { status: 'present' }, { token });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ success: false, error: 'You can only change your own attendance' });
      }
      const list = await t.get('/attendance?date=2025-03-13', { token: ravi.token });
      expect(list.body.attendance[0].status).toBe('absent');
    });

    it('answers 404 for an unknown id and 400 for a malformed id or body, changing nothing', async () => {
      const unknown = await t.put(`/attendance/${UNKNOWN_ID}`, { status: 'present' }, { token: admin });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ success: false, error: 'Attendance record not found' });
      const malformed = await t.put('/attendance/not-an-id', { status: 'present' }, { token: admin });
      expect(malformed.status).toBe(400);
      expect(malformed.body).toEqual({ success: false, error: 'Invalid id: expected a UUID' });
      for (const body of [
        {},
        { status: 'late' },
        { status: 'present', mealType: 'Dinner' },
        { status: null },
      ]) {
        const res = await t.put(`/attendance/${markId}`, body, { token: ravi.token });
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('Validation failed');
      }
      const list = await t.get('/attendance?date=2025-03-13', { token: ravi.token });
      expect(list.body.attendance).toEqual([
        expect.objectContaining({ status: 'absent', mealType: 'Snacks' }),
      ]);
    });
  });

  describe('POST /attendance input', () => {
    it.each([
      ['an unknown meal type', { date: '2025-03-14', mealType: 'Lunch', status: 'present' }, 'mealType'],
      [
        'a meal type in the wrong case',
        { date: '2025-03-14', mealType: 'dinner', status: 'present' },
        'mealType',
      ],
      ['a date that does not exist', { date: '2025-02-30', mealType: 'Dinner', status: 'present' }, 'date'],
      ['a date in another format', { date: '14-03-2025', mealType: 'Dinner', status: 'present' }, 'date'],
      ['an unknown status', { date: '2025-03-14', mealType: 'Dinner', status: 'late' }, 'status'],
      [
        'a malformed userId',
        { date: '2025-03-14', mealType: 'Dinner', status: 'present', userId: 'x' },
        'userId',
      ],
      [
        'an unknown field',
        { date: '2025-03-14', mealType: 'Dinner', status: 'present', rating: 5 },
        'rating',
      ],
      ['a missing status', { date: '2025-03-14', mealType: 'Dinner' }, 'status'],
    ])('400 for %s, and nothing is written', async (_case, body, field) => {
      const res = await t.post('/attendance', body, { token: asha.token });
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.error).toBe('Validation failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual([field]);
      expect(await storedMarks(asha.id, '2025-03-14')).toBe(0);
    });
  });

  it('answers a repeat of a mark into a closed month with 200, changing nothing; a different status is 409', async () => {
    const slot = { date: '2024-11-05', mealType: 'Dinner' };
    const first = await t.post('/attendance', { ...slot, status: 'present' }, { token: ravi.token });
    expect(first.status).toBe(201);
    const close = await t.post('/analytics/months/2024-11/close', undefined, { token: treasurer.token });
    expect(close.status).toBe(200);
    try {
      const repeat = await t.post('/attendance', { ...slot, status: 'present' }, { token: ravi.token });
      expect(repeat.status).toBe(200);
      expect(repeat.body.attendance).toEqual(first.body.attendance);
      const byManager = await t.post(
        '/attendance',
        { ...slot, status: 'present', userId: ravi.id },
        { token: manager.token },
      );
      expect(byManager.status).toBe(200);

      const change = await t.post('/attendance', { ...slot, status: 'absent' }, { token: ravi.token });
      expect(change.status).toBe(409);
      expect(change.body.error).toMatch(/Month 2024-11 is closed/);
      const fresh = await t.post('/attendance', { ...slot, status: 'present' }, { token: asha.token });
      expect(fresh.status).toBe(409);
      expect(await storedMarks(asha.id, slot.date)).toBe(0);
    } finally {
      expect((await t.post('/analytics/months/2024-11/reopen', undefined, { token: admin })).status).toBe(
        200,
      );
    }
  });

  it('keeps exactly one row when 50 identical marks arrive at once', async () => {
    const member = await t.member();
    const body = { date: '2025-03-15', mealType: 'Dinner', status: 'present' };
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => t.post('/attendance', body, { token: member.token })),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 201)).toBe(true);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(new Set(responses.map((r) => r.body.attendance._id)).size).toBe(1);
    expect(await storedMarks(member.id, '2025-03-15')).toBe(1);

    // and 20 at once that flip between statuses still leave one row holding one of them
    const flips = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.post('/attendance', { ...body, status: i % 2 ? 'present' : 'absent' }, { token: member.token }),
      ),
    );
    expect(flips.every((r) => r.status === 200)).toBe(true);
    expect(await storedMarks(member.id, '2025-03-15')).toBe(1);
  });

  describe('GET /attendance', () => {
    let carol: Member;
    beforeAll(async () => {
      carol = await t.member('student', { fullName: 'Carol Dsouza' });
      // the last day of January and the first of March bracket February
      for (const [date, status] of [
        ['2025-01-31', 'present'],
        ['2025-02-01', 'present'],
        ['2025-02-14', 'absent'],
        ['2025-02-28', 'present'],
        ['2025-03-01', 'present'],
      ]) {
        const res = await t.post('/attendance', { date, mealType: 'Dinner', status }, { token: carol.token });
        expect(res.status).toBe(201);
      }
      await t.post(
        '/attendance',
        { date: '2025-02-14', mealType: 'Dinner', status: 'present', userId: asha.id },
        { token: manager.token },
      );
    });

    it('selects exactly the days of a month', async () => {
      const feb = await t.get(`/attendance?month=2025-02&userId=${carol.id}`, { token: manager.token });
      expect(feb.status).toBe(200);
      expect(feb.body.attendance.map((a: { date: string }) => a.date)).toEqual([
        '2025-02-28',
        '2025-02-14',
        '2025-02-01',
      ]);
      expect(feb.body.pagination.total).toBe(3);
      const leap = await t.get(`/attendance?month=2024-02&userId=${carol.id}`, { token: manager.token });
      expect(leap.body.attendance).toEqual([]);
      const present = await t.get(`/attendance?month=2025-02&status=present`, { token: carol.token });
      expect(present.body.attendance.map((a: { date: string }) => a.date)).toEqual([
        '2025-02-28',
        '2025-02-01',
      ]);
    });

    it('shows a student only their own marks, whatever userId they pass', async () => {
      for (const query of ['', `?userId=${asha.id}`, `?userId=${UNKNOWN_ID}`]) {
        const res = await t.get(`/attendance${query}`, { token: carol.token });
        expect(res.status).toBe(200);
        expect(res.body.attendance).toHaveLength(5);
        for (const mark of res.body.attendance) {
          expect(mark.userId).toBe(carol.id);
          expect(mark.user).toEqual({ _id: carol.id, fullName: 'Carol Dsouza' });
        }
      }
    });

    it("shows staff everyone's marks with the member's name, and filters by member, date and status", async () => {
      for (const token of [manager.token, treasurer.token, admin]) {
        const day = await t.get('/attendance?date=2025-02-14', { token });
        expect(day.status).toBe(200);
        expect(
          day.body.attendance.map((a: { user: { fullName: string }; status: string }) => [
            a.user.fullName,
            a.status,
          ]),
        ).toEqual([
          ['Asha Verma', 'present'],
          ['Carol Dsouza', 'absent'],
        ]);
      }
      const absent = await t.get('/attendance?date=2025-02-14&status=absent', { token: manager.token });
      expect(absent.body.attendance.map((a: { userId: string }) => a.userId)).toEqual([carol.id]);
      const one = await t.get(`/attendance?userId=${asha.id}&month=2025-02`, { token: treasurer.token });
      expect(one.body.attendance).toEqual([
        expect.objectContaining({ userId: asha.id, user: { _id: asha.id, fullName: 'Asha Verma' } }),
      ]);
    });

    it('pages with page and limit', async () => {
      const first = await t.get('/attendance?limit=2', { token: carol.token });
      expect(first.body.attendance.map((a: { date: string }) => a.date)).toEqual([
        '2025-03-01',
        '2025-02-28',
      ]);
      expect(first.body.pagination).toEqual({ page: 1, limit: 2, total: 5 });
      const third = await t.get('/attendance?limit=2&page=3', { token: carol.token });
      expect(third.body.attendance.map((a: { date: string }) => a.date)).toEqual(['2025-01-31']);
    });

    it.each([
      ['month=2025-13', 'month'],
      ['month=2025-2', 'month'],
      ['date=2025-02-30', 'date'],
      ['status=late', 'status'],
      ['userId=42', 'userId'],
      ['limit=501', 'limit'],
      ['page=0', 'page'],
      ['sort=date', 'sort'],
    ])('400 for %s', async (query, field) => {
      const res = await t.get(`/attendance?${query}`, { token: manager.token });
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual([field]);
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

    it('answers normally when a listener throws', async () => {
      const member = await t.member();
      const failing = () => {
        throw new Error('listener broke');
      };
      emitter().on('attendance.marked', failing);
      try {
        const res = await t.post(
          '/attendance',
          { date: '2025-05-03', mealType: 'Dinner', status: 'present' },
          { token: member.token },
        );
        expect(res.status).toBe(201);
      } finally {
        emitter().off('attendance.marked', failing);
      }
      expect(await storedMarks(member.id, '2025-05-03')).toBe(1);
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

  it('is described in the OpenAPI document', async () => {
    const doc = await t.get('/docs.json');
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(['/api/attendance', '/api/attendance/bulk', '/api/attendance/{id}']),
    );
    const post = doc.body.paths['/api/attendance'].post;
    expect(Object.keys(post.responses)).toEqual(
      expect.arrayContaining(['200', '201', '400', '401', '403', '404']),
    );
  });
});
