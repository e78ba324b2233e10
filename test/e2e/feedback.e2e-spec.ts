import { count, eq } from 'drizzle-orm';
import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { Clock } from '../../src/common/time/clock';
import { Database } from '../../src/database/database';
import { FEEDBACK_OTHERS_HIDDEN } from '../../src/modules/feedback/feedback.errors';
import { feedback } from '../../src/modules/feedback/feedback.schema';
import { TestApp } from '../support/app';

type Member = Awaited<ReturnType<TestApp['member']>>;

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('Feedback', () => {
  let t: TestApp;
  let admin: string;
  let manager: Member;
  let asha: Member;
  let ravi: Member;

  const storedFeedback = async (userId: string): Promise<number> => {
    // Reads the table itself, as the members' mess (the first) sees it.
    const [{ n }] = await inMess(FIRST_MESS_ID, () =>
      t.app.get(Database).db.select({ n: count() }).from(feedback).where(eq(feedback.userId, userId)),
    );
    return n;
  };

  // Start-up (migrations) and the sign-ups (bcrypt) get room on a busy machine.
  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.adminToken();
    manager = await t.member('manager', { fullName: 'Meera Manager' });
    asha = await t.member('student', { fullName: 'Asha Verma' });
    ravi = await t.member('student', { fullName: 'Ravi Kumar' });
  }, 90_000);
  afterAll(() => t?.close());

  it('answers 401 No token on every route without a token', async () => {
    for (const res of [
      await t.get('/feedback'),
      await t.post('/feedback', { date: '2025-03-14', mealType: 'Lunch', rating: 4 }),
      await t.put(`/feedback/${UNKNOWN_ID}`, { rating: 3 }),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'No token' });
    }
  });

  it('walks one feedback from submission through a refused duplicate to edits', async () => {
    const created = await t.post(
      '/feedback',
      { date: '2025-03-10', mealType: 'Lunch', rating: 4, comment: '  Dal was great  ' },
      { token: asha.token },
    );
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      feedback: {
        _id: expect.any(String),
        userId: asha.id,
        date: '2025-03-10',
        mealType: 'Lunch',
        rating: 4,
        comment: 'Dal was great',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    const id = created.body.feedback._id;

    const duplicate = await t.post(
      '/feedback',
      { date: '2025-03-10', mealType: 'Lunch', rating: 1 },
      { token: asha.token },
    );
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual({
      success: false,
      error: 'You have already given feedback for this meal; change it with PUT /feedback/:id',
      existingId: id,
    });

    // another meal of the same day, and the same meal for another member, are separate
    expect(
      (
        await t.post(
          '/feedback',
          { date: '2025-03-10', mealType: 'Dinner', rating: 2 },
          { token: asha.token },
        )
      ).status,
    ).toBe(201);
    expect(
      (await t.post('/feedback', { date: '2025-03-10', mealType: 'Lunch', rating: 5 }, { token: ravi.token }))
        .status,
    ).toBe(201);

    const rating = await t.put(`/feedback/${id}`, { rating: 5 }, { token: asha.token });
    expect(rating.status).toBe(200);
    expect(rating.body).toEqual({
      success: true,
      feedback: { ...created.body.feedback, rating: 5, updatedAt: expect.any(String) },
    });
    const comment = await t.put(`/feedback/${id}`, { comment: ' ' }, { token: asha.token });
    expect(comment.body.feedback).toMatchObject({ rating: 5, comment: '' });
    const both = await t.put(`/feedback/${id}`, { rating: 3, comment: 'Rice was cold' }, { token: admin });
    expect(both.status).toBe(200);
    expect(both.body.feedback).toMatchObject({
      _id: id,
      userId: asha.id,
      rating: 3,
      comment: 'Rice was cold',
    });
    expect(await storedFeedback(asha.id)).toBe(2);
  });

  it('lets exactly one of ten simultaneous submissions for one meal through', async () => {
    const member = await t.member();
    const body = { date: '2025-03-11', mealType: 'Dinner', rating: 4 };
    const statuses = (
      await Promise.all(Array.from({ length: 10 }, () => t.post('/feedback', body, { token: member.token })))
    ).map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(9);
    expect(await storedFeedback(member.id)).toBe(1);
  });

  describe('POST /feedback input', () => {
    const valid = { date: '2025-03-12', mealType: 'Breakfast', rating: 4, comment: 'ok' };
    it.each([
      ['rating 0', { rating: 0 }, 'rating'],
      ['rating 6', { rating: 6 }, 'rating'],
      ['rating 2.5', { rating: 2.5 }, 'rating'],
      ['rating "5"', { rating: '5' }, 'rating'],
      ['rating null', { rating: null }, 'rating'],
      ['no rating', { rating: undefined }, 'rating'],
      ['an unknown meal type', { mealType: 'Brunch' }, 'mealType'],
      ['a date that does not exist', { date: '2025-02-30' }, 'date'],
      ['a date in the future', { date: '2999-12-31' }, 'date'],
      ['a comment too long', { comment: 'x'.repeat(1001) }, 'comment'],
      ['a comment that is not a string', { comment: 42 }, 'comment'],
      ['a null comment', { comment: null }, 'comment'],
      ['a NUL in the comment', { comment: 'good\u0000food' }, 'comment'],
      ['an unknown field', { status: 'present' }, 'status'],
    ])('400 for %s, and nothing is written', async (_case, override, field) => {
      const res = await t.post('/feedback', { ...valid, ...override }, { token: ravi.token });
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.error).toBe('Validation failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual([field]);
      const list = await t.get(`/feedback?date=2025-03-12&userId=${ravi.id}`, { token: ravi.token });
      expect(list.body.feedback).toEqual([]);
    });

    it("accepts today's meals in the mess time zone and refuses tomorrow's, on both sides of midnight", async () => {
      const clock = jest.spyOn(t.app.get(Clock), 'now');
      try {
        // 23:59 on 14 March in Kolkata (18:29 UTC): the 14th is today, the 15th is not yet
        clock.mockReturnValue(new Date('2025-03-14T18:29:00Z'));
        const early = await t.post(
          '/feedback',
          { date: '2025-03-15', mealType: 'Breakfast', rating: 3 },
          { token: asha.token },
        );
        expect([early.status, early.body.details]).toEqual([
          400,
          [{ field: 'date', message: 'feedback is for meals on or before today (2025-03-14)' }],
        ]);
        const onTheDay = await t.post(
          '/feedback',
          { date: '2025-03-14', mealType: 'Dinner', rating: 5 },
          { token: asha.token },
        );
        expect(onTheDay.status).toBe(201);

        // 00:30 on 15 March in Kolkata, still the 14th in UTC: the 15th is today now
        clock.mockReturnValue(new Date('2025-03-14T19:00:00Z'));
        const today = await t.post(
          '/feedback',
          { date: '2025-03-15', mealType: 'Breakfast', rating: 1 },
          { token: ravi.token },
        );
        expect(today.status).toBe(201);
        expect(today.body.feedback.comment).toBe('');
        const tomorrow = await t.post(
          '/feedback',
          { date: '2025-03-16', mealType: 'Breakfast', rating: 1 },
          { token: ravi.token },
        );
        expect(tomorrow.status).toBe(400);
      } finally {
        clock.mockRestore();
      }
    });

    it('accepts a comment of exactly 1000 characters, or none', async () => {
      const long = await t.post('/feedback', { ...valid, comment: 'y'.repeat(1000) }, { token: ravi.token });
      expect(long.status).toBe(201);
      expect(long.body.feedback.comment).toHaveLength(1000);
    });
  });

  describe('PUT /feedback/:id', () => {
    let id: string;
    beforeAll(async () => {
      const res = await t.post(
        '/feedback',
        { date: '2025-03-13', mealType: 'Dinner', rating: 4, comment: 'Paneer!' },
        { token: ravi.token },
      );
      id = res.body.feedback._id;
    });

    const unchanged = async () => {
      const list = await t.get(`/feedback?date=2025-03-13&userId=${ravi.id}`, { token: ravi.token });
      expect(list.body.feedback).toEqual([
        expect.objectContaining({ _id: id, rating: 4, comment: 'Paneer!' }),
      ]);
    };

    it("refuses another member's edit with 403, a manager's too; an admin may", async () => {
      for (const token of [asha.token, manager.token]) {
        const res = await t.put(`/feedback/${id}`, { rating: 1 }, { token });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ success: false, error: 'You can only edit your own feedback' });
      }
      await unchanged();
      const byAdmin = await t.put(`/feedback/${id}`, { rating: 4 }, { token: admin });
      expect(byAdmin.status).toBe(200);
    });

    it('answers 404 for an unknown id and 400 for a malformed one', async () => {
      const unknown = await t.put(`/feedback/${UNKNOWN_ID}`, { rating: 3 }, { token: ravi.token });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ success: false, error: 'Feedback not found' });
      const malformed = await t.put('/feedback/12345', { rating: 3 }, { token: ravi.token });
      expect(malformed.status).toBe(400);
      expect(malformed.body).toEqual({ success: false, error: 'Invalid id: expected a UUID' });
    });

    it.each([
      ['an empty body', {}, 'body'],
      ['rating 0', { rating: 0 }, 'rating'],
      ['rating 6', { rating: 6 }, 'rating'],
      ['rating 2.5', { rating: 2.5 }, 'rating'],
      ['rating "5"', { rating: '5' }, 'rating'],
      ['rating null', { rating: null }, 'rating'],
      ['a comment too long', { comment: 'z'.repeat(1001) }, 'comment'],
      ['a new date', { rating: 3, date: '2025-03-14' }, 'date'],
      ['a new meal type', { mealType: 'Lunch' }, 'mealType'],
    ])('400 for %s, changing nothing', async (_case, body, field) => {
      const res = await t.put(`/feedback/${id}`, body, { token: ravi.token });
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual([field]);
      await unchanged();
    });
  });

  describe('GET /feedback', () => {
    let carol: Member;
    beforeAll(async () => {
      carol = await t.member('student', { fullName: 'Carol Dsouza' });
      for (const [date, mealType, rating] of [
        ['2025-01-05', 'Breakfast', 2],
        ['2025-01-06', 'Lunch', 5],
        ['2025-01-07', 'Dinner', 5],
      ] as const) {
        const res = await t.post('/feedback', { date, mealType, rating }, { token: carol.token });
        expect(res.status).toBe(201);
      }
      await t.post(
        '/feedback',
        { date: '2025-01-06', mealType: 'Lunch', rating: 3 },
        { token: manager.token },
      );
    });

    it('lists newest meals first with the member nested as userId {_id, fullName}', async () => {
      for (const token of [carol.token, manager.token, await t.adminToken()]) {
        const res = await t.get(`/feedback?userId=${carol.id}`, { token });
        expect(res.status).toBe(200);
        expect(res.body.success).toBe(true);
        expect(res.body.feedback.map((f: { date: string }) => f.date)).toEqual([
          '2025-01-07',
          '2025-01-06',
          '2025-01-05',
        ]);
        expect(res.body.feedback[0]).toEqual({
          _id: expect.any(String),
          userId: { _id: carol.id, fullName: 'Carol Dsouza' },
          date: '2025-01-07',
          mealType: 'Dinner',
          rating: 5,
          comment: '',
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
        });
        expect(res.body.pagination).toEqual({ page: 1, limit: 100, total: 3 });
      }
    });

    it("shows a student only their own name: others' feedback is anonymous, staff see everyone", async () => {
      const who = async (token: string) =>
        (await t.get('/feedback?mealType=Lunch&date=2025-01-06', { token })).body.feedback.map(
          (f: { userId: { _id: string; fullName: string } | null; rating: number }) => [f.userId, f.rating],
        );
      const carolsOwn = { _id: carol.id, fullName: 'Carol Dsouza' };
      const managers = { _id: manager.id, fullName: 'Meera Manager' };
      // newest first: the manager's came second
      expect(await who(carol.token)).toEqual([
        [null, 3],
        [carolsOwn, 5],
      ]);
      expect(await who(asha.token)).toEqual([
        [null, 3],
        [null, 5],
      ]);
      const everyone = [
        [managers, 3],
        [carolsOwn, 5],
      ];
      expect(await who(manager.token)).toEqual(everyone);
      expect(await who((await t.member('treasurer')).token)).toEqual(everyone);
      expect(await who(await t.adminToken())).toEqual(everyone);
      // nor can a student find out whose it is through the filter
      const filtered = await t.get(`/feedback?userId=${carol.id}`, { token: asha.token });
      expect([filtered.status, filtered.body]).toEqual([
        403,
        { success: false, error: FEEDBACK_OTHERS_HIDDEN },
      ]);
      const own = await t.get(`/feedback?userId=${carol.id}`, { token: carol.token });
      expect(own.body.pagination.total).toBe(3);
    });

    it('filters by meal type, date and rating, and pages', async () => {
      const lunch = await t.get('/feedback?mealType=Lunch&date=2025-01-06', { token: manager.token });
      expect(
        lunch.body.feedback.map((f: { userId: { fullName: string }; rating: number }) => [
          f.userId.fullName,
          f.rating,
        ]),
      ).toEqual(
        expect.arrayContaining([
          ['Carol Dsouza', 5],
          ['Meera Manager', 3],
        ]),
      );
      expect(lunch.body.feedback).toHaveLength(2);
      // the manager's came second, so it is newer
      expect(lunch.body.feedback[0].userId.fullName).toBe('Meera Manager');
      const fives = await t.get(`/feedback?rating=5&userId=${carol.id}`, { token: manager.token });
      expect(fives.body.feedback.map((f: { date: string }) => f.date)).toEqual(['2025-01-07', '2025-01-06']);
      const page = await t.get(`/feedback?userId=${carol.id}&limit=1&page=2`, { token: carol.token });
      expect(page.body.feedback.map((f: { date: string }) => f.date)).toEqual(['2025-01-06']);
      expect(page.body.pagination).toEqual({ page: 2, limit: 1, total: 3 });
      // a meal type no longer configured still finds nothing rather than failing
      const old = await t.get('/feedback?mealType=Supper', { token: asha.token });
      expect(old.status).toBe(200);
      expect(old.body.feedback).toEqual([]);
    });

    it.each([
      ['rating=0', 'rating'],
      ['rating=6', 'rating'],
      ['rating=2.5', 'rating'],
      ['rating=abc', 'rating'],
      ['date=2025-02-30', 'date'],
      ['userId=nope', 'userId'],
      ['limit=501', 'limit'],
      ['status=present', 'status'],
    ])('400 for %s', async (query, field) => {
      const res = await t.get(`/feedback?${query}`, { token: asha.token });
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual([field]);
    });
  });

  it('is described in the OpenAPI document', async () => {
    const doc = await t.get('/docs.json');
    expect(doc.body.paths['/api/feedback'].post.responses).toHaveProperty('409');
    expect(doc.body.paths['/api/feedback/{id}'].put.responses).toHaveProperty('403');
    const item = doc.body.components.schemas.FeedbackListItemDto;
    expect(item.properties.userId.$ref ?? item.properties.userId.allOf?.[0]?.$ref).toMatch(
      /FeedbackMemberDto/,
    );
  });
});
