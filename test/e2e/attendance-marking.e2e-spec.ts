import { EventEmitter2 } from '@nestjs/event-emitter';
import { TestApp } from '../support/app';
import { type Member, startAttendanceApp, storedMarksOf, UNKNOWN_ID } from '../support/attendance';

/** One member's mark of one meal: POST, PUT and GET /attendance, who may mark and see whom, what is refused. */
describe('Attendance: marking', () => {
  let t: TestApp;
  let admin: string;
  let manager: Member;
  let treasurer: Member;
  let asha: Member;
  let ravi: Member;
  let pendingId: string;

  /** Counts the stored marks of one member, straight from the database. */
  const storedMarks = (userId: string, date?: string): Promise<number> => storedMarksOf(t, userId, date);

  // Start-up (migrations) gets room on a busy machine.
  beforeAll(async () => {
    ({ t, admin, manager, treasurer, asha, ravi, pendingId } = await startAttendanceApp());
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

  describe('domain events', () => {
    const emitter = () => t.app.get(EventEmitter2);

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
