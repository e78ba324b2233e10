import { EventEmitter2 } from '@nestjs/event-emitter';
import { eq } from 'drizzle-orm';
import type { MealEvent } from '../../src/common/events/event-map';
import { Clock } from '../../src/common/time/clock';
import { Database } from '../../src/database/database';
import { meals } from '../../src/modules/meals/meals.schema';
import { OutboxRelay } from '../../src/modules/outbox';
import { TestApp } from '../support/app';
import { ids, ISO, mealsOn, type Member, publishMeal, startMealsApp, UNKNOWN_ID } from '../support/meals';

/**
 * The menu: publishing, reading (by date and by ISO week, by the mess clock in its time zone), replacing and deleting
 * one menu per date and meal type; who may do which; bad input; no event for a refused write, and a failing listener
 * does not fail the request (the events' payloads and their order: test/medium/specs/meals.medium-spec.ts).
 */
describe('Meals: the menu, one per date and meal type, published by managers', () => {
  let t: TestApp;
  let admin: string;
  let adminId: string;
  let manager: Member;
  let otherManager: Member;
  let treasurer: Member;
  let student: Member;

  beforeAll(async () => {
    ({ t, admin, adminId, manager, otherManager, treasurer, student } = await startMealsApp());
  });
  afterAll(() => t?.close());
  afterEach(() => jest.restoreAllMocks());

  const publish = (token: string, body: Record<string, unknown>) => publishMeal(t, token, body);
  const onDate = (date: string) => mealsOn(t, student.token, date);

  it('walks the contract: publish, read, list, replace, delete', async () => {
    const created = await t.post(
      '/meals',
      {
        date: '2025-03-14',
        mealType: 'Lunch',
        dishes: [' Rice ', 'Dal tadka', 'Curd'],
        notes: 'Sweet on Fridays',
      },
      { token: manager.token },
    );
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      meal: {
        _id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        date: '2025-03-14',
        mealType: 'Lunch',
        dishes: ['Rice', 'Dal tadka', 'Curd'],
        notes: 'Sweet on Fridays',
        source: 'manager',
        createdBy: { _id: manager.id, fullName: 'Meera Nair' },
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      },
    });
    const meal = created.body.meal;

    const read = await t.get(`/meals/${meal._id}`, { token: student.token });
    expect([read.status, read.body]).toEqual([200, { success: true, meal }]);

    const list = await t.get('/meals?date=2025-03-14', { token: student.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ success: true, meals: [meal] });

    // the publisher replaces it; an omitted notes becomes empty
    const replaced = await t.put(
      `/meals/${meal._id}`,
      { date: '2025-03-14', mealType: 'Lunch', dishes: ['Jeera rice', 'Rajma'] },
      { token: manager.token },
    );
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({
      success: true,
      meal: { ...meal, dishes: ['Jeera rice', 'Rajma'], notes: '', updatedAt: expect.stringMatching(ISO) },
    });
    expect(await onDate('2025-03-14')).toEqual([replaced.body.meal]);

    const deleted = await t.delete(`/meals/${meal._id}`, { token: manager.token });
    expect([deleted.status, deleted.body]).toEqual([200, { success: true, message: 'Meal deleted' }]);
    const gone = await t.get(`/meals/${meal._id}`, { token: student.token });
    expect([gone.status, gone.body]).toEqual([404, { success: false, error: 'Meal not found' }]);
    expect(await onDate('2025-03-14')).toEqual([]);
  });

  describe('guards', () => {
    let mealId: string;
    beforeAll(async () => {
      mealId = (await publish(manager.token, { date: '2025-01-01', mealType: 'Breakfast', dishes: ['Poha'] }))
        ._id;
    });

    it('401 No token on every endpoint', async () => {
      const body = { date: '2025-01-02', mealType: 'Breakfast', dishes: ['Idli'] };
      for (const res of [
        await t.get('/meals'),
        await t.post('/meals', body),
        await t.get(`/meals/${mealId}`),
        await t.put(`/meals/${mealId}`, body),
        await t.delete(`/meals/${mealId}`),
      ]) {
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'No token' });
      }
    });

    it('lets managers and the admin publish, and refuses students and treasurers with 403 Forbidden', async () => {
      const body = { date: '2025-01-02', mealType: 'Breakfast', dishes: ['Idli'] };
      for (const token of [student.token, treasurer.token]) {
        const res = await t.post('/meals', body, { token });
        expect([res.status, res.body]).toEqual([403, { error: 'Forbidden' }]);
      }
      expect(await onDate('2025-01-02')).toEqual([]);
      const byAdmin = await publish(admin, body);
      expect(byAdmin.createdBy).toEqual({ _id: adminId, fullName: 'Mess Admin' });
    });
  });

  describe('one menu per date and meal type', () => {
    it('answers 409 to a second menu for the same meal, and keeps the first', async () => {
      const first = await publish(manager.token, {
        date: '2025-04-01',
        mealType: 'Lunch',
        dishes: ['Biryani'],
      });
      const second = await t.post(
        '/meals',
        { date: '2025-04-01', mealType: 'Lunch', dishes: ['Pulao'] },
        { token: otherManager.token },
      );
      expect(second.status).toBe(409);
      // it names the menu that holds the slot
      expect(second.body).toEqual({
        success: false,
        error: 'A menu for this date and meal type already exists',
        existingId: first._id,
      });
      expect(await onDate('2025-04-01')).toEqual([first]);
      // another meal of the same day is fine
      await publish(manager.token, { date: '2025-04-01', mealType: 'Supper', dishes: ['Roti'] });
    });

    it('lets exactly one of two simultaneous publications through', async () => {
      const body = { date: '2025-04-02', mealType: 'Snacks', dishes: ['Samosa'] };
      const statuses = await Promise.all([
        t.post('/meals', body, { token: manager.token }),
        t.post('/meals', body, { token: otherManager.token }),
      ]);
      expect(statuses.map((r) => r.status).sort()).toEqual([201, 409]);
      const [winner] = await onDate('2025-04-02');
      expect(statuses.find((r) => r.status === 409)!.body.existingId).toBe(winner._id);
      expect((await onDate('2025-04-02')).length).toBe(1);
    });

    it('answers 409 when an update moves a menu onto a taken meal, and changes nothing', async () => {
      const lunch = await publish(manager.token, {
        date: '2025-04-03',
        mealType: 'Lunch',
        dishes: ['Khichdi'],
      });
      const supper = await publish(manager.token, {
        date: '2025-04-03',
        mealType: 'Supper',
        dishes: ['Paratha'],
      });
      const res = await t.put(
        `/meals/${supper._id}`,
        { date: '2025-04-03', mealType: 'Lunch', dishes: ['Paratha'] },
        { token: manager.token },
      );
      expect([res.status, res.body]).toEqual([
        409,
        { success: false, error: 'A menu for this date and meal type already exists', existingId: lunch._id },
      ]);
      expect(await onDate('2025-04-03')).toEqual([lunch, supper]);
      // moving it to a free slot works
      const moved = await t.put(
        `/meals/${supper._id}`,
        { date: '2025-04-04', mealType: 'Lunch', dishes: ['Paratha'], notes: 'moved' },
        { token: manager.token },
      );
      expect(moved.status).toBe(200);
      expect(moved.body.meal).toMatchObject({ _id: supper._id, date: '2025-04-04', mealType: 'Lunch' });
      expect(ids(await onDate('2025-04-03'))).toEqual([lunch._id]);
    });
  });

  describe('ownership', () => {
    it("refuses another manager's change with 403 and leaves the menu as it was; the admin may change it", async () => {
      const mine = await publish(manager.token, {
        date: '2025-05-01',
        mealType: 'Breakfast',
        dishes: ['Upma'],
        notes: 'With chutney',
      });
      const change = { date: '2025-05-01', mealType: 'Breakfast', dishes: ['Dosa'] };
      for (const token of [otherManager.token, treasurer.token, student.token]) {
        const put = await t.put(`/meals/${mine._id}`, change, { token });
        expect([put.status, put.body]).toEqual([
          403,
          { success: false, error: 'You can only change your own menus' },
        ]);
        const del = await t.delete(`/meals/${mine._id}`, { token });
        expect([del.status, del.body]).toEqual([
          403,
          { success: false, error: 'You can only change your own menus' },
        ]);
      }
      expect((await t.get(`/meals/${mine._id}`, { token: student.token })).body.meal).toEqual(mine);

      const byAdmin = await t.put(`/meals/${mine._id}`, change, { token: admin });
      expect(byAdmin.status).toBe(200);
      expect(byAdmin.body.meal).toMatchObject({
        dishes: ['Dosa'],
        notes: '',
        createdBy: { _id: manager.id, fullName: 'Meera Nair' },
      });
      expect((await t.delete(`/meals/${mine._id}`, { token: admin })).status).toBe(200);
      expect(await onDate('2025-05-01')).toEqual([]);
    });
  });

  describe('reading by week', () => {
    // ISO week 11 of 2025 runs from Monday 10 March to Sunday 16 March.
    let inside: string[];
    let sundayBefore: string;
    let mondayAfter: string;
    beforeAll(async () => {
      sundayBefore = (
        await publish(manager.token, { date: '2025-03-09', mealType: 'Supper', dishes: ['Before'] })
      )._id;
      mondayAfter = (
        await publish(manager.token, { date: '2025-03-17', mealType: 'Breakfast', dishes: ['After'] })
      )._id;
      // published out of order on purpose
      const rows: [string, string][] = [
        ['2025-03-16', 'Supper'],
        ['2025-03-12', 'Supper'],
        ['2025-03-12', 'Breakfast'],
        ['2025-03-12', 'Snacks'],
        ['2025-03-12', 'Lunch'],
        ['2025-03-10', 'Breakfast'],
      ];
      const created: Record<string, string> = {};
      for (const [date, mealType] of rows) {
        created[`${date} ${mealType}`] = (
          await publish(otherManager.token, { date, mealType, dishes: ['Dish'] })
        )._id;
      }
      inside = [
        '2025-03-10 Breakfast',
        '2025-03-12 Breakfast',
        '2025-03-12 Lunch',
        '2025-03-12 Snacks',
        '2025-03-12 Supper',
        '2025-03-16 Supper',
      ].map((key) => created[key]);
    });

    it('returns exactly the seven days of the week, by date and then by the time of the meal', async () => {
      const res = await t.get('/meals?week=11&year=2025', { token: student.token });
      expect(res.status).toBe(200);
      expect(ids(res.body.meals)).toEqual(inside);
      expect(ids(res.body.meals)).not.toContain(sundayBefore);
      expect(ids(res.body.meals)).not.toContain(mondayAfter);
      expect(res.body.meals[0].createdBy).toEqual({ _id: otherManager.id, fullName: 'Kiran Rao' });
      // the neighbouring weeks hold the edges
      expect(ids((await t.get('/meals?week=10&year=2025', { token: student.token })).body.meals)).toContain(
        sundayBefore,
      );
      expect(ids((await t.get('/meals?week=12&year=2025', { token: student.token })).body.meals)).toEqual([
        mondayAfter,
      ]);
    });

    it('filters the week by meal type', async () => {
      const res = await t.get('/meals?week=11&year=2025&mealType=Supper', { token: student.token });
      expect(res.body.meals.map((m: { date: string }) => m.date)).toEqual(['2025-03-12', '2025-03-16']);
      const day = await t.get('/meals?date=2025-03-12&mealType=Lunch', { token: student.token });
      expect(ids(day.body.meals)).toEqual([inside[2]]);
      // a meal type that is not configured matches nothing rather than failing
      const none = await t.get('/meals?week=11&year=2025&mealType=Brunch', { token: student.token });
      expect([none.status, none.body.meals]).toEqual([200, []]);
    });

    it('takes the year, and the current week, from the mess clock in the mess time zone', async () => {
      // 19:00 UTC on Sunday 16 March is already Monday 17 March (week 12) in India
      jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date('2025-03-16T19:00:00Z'));
      expect(ids((await t.get('/meals', { token: student.token })).body.meals)).toEqual([mondayAfter]);
      expect(ids((await t.get('/meals?week=11', { token: student.token })).body.meals)).toEqual(inside);

      // 30 December 2024 belongs to week 1 of 2025: `week=1` alone means that week
      await publish(manager.token, { date: '2024-12-30', mealType: 'Lunch', dishes: ['New year week'] });
      await publish(manager.token, { date: '2024-01-01', mealType: 'Lunch', dishes: ['A year before'] });
      jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date('2024-12-29T19:00:00Z'));
      const week1 = await t.get('/meals?week=1', { token: student.token });
      // (the guards' menus of 1 and 2 January 2025 are in that week too)
      expect(week1.body.meals.map((m: { date: string }) => m.date)).toEqual([
        '2024-12-30',
        '2025-01-01',
        '2025-01-02',
      ]);
      const week1of2024 = await t.get('/meals?week=1&year=2024', { token: student.token });
      expect(week1of2024.body.meals.map((m: { date: string }) => m.date)).toEqual(['2024-01-01']);
    });

    it('knows which years have a week 53', async () => {
      await publish(manager.token, { date: '2021-01-03', mealType: 'Lunch', dishes: ['Week 53'] });
      const ok = await t.get('/meals?week=53&year=2020', { token: student.token });
      expect([ok.status, ok.body.meals.map((m: { date: string }) => m.date)]).toEqual([200, ['2021-01-03']]);
      const bad = await t.get('/meals?week=53&year=2025', { token: student.token });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({
        success: false,
        error: 'Validation failed',
        details: [{ field: 'week', message: 'week must be from 1 to 52 in 2025' }],
      });
    });

    it('reads a range of days, both ends included, at most 31 of them', async () => {
      const range = await t.get('/meals?from=2025-03-10&to=2025-03-16', { token: student.token });
      expect([range.status, ids(range.body.meals)]).toEqual([200, inside]);
      // the range crosses weeks: one day either side takes in the edges, in order
      const wider = await t.get('/meals?from=2025-03-09&to=2025-03-17&mealType=Supper', {
        token: student.token,
      });
      expect(wider.body.meals.map((m: { date: string }) => m.date)).toEqual([
        '2025-03-09',
        '2025-03-12',
        '2025-03-16',
      ]);
      const oneDay = await t.get('/meals?from=2025-03-17&to=2025-03-17', { token: student.token });
      expect(ids(oneDay.body.meals)).toEqual([mondayAfter]);
      // 31 days is the most: 1 to 31 March is taken, 1 March to 1 April is not
      expect((await t.get('/meals?from=2025-03-01&to=2025-03-31', { token: student.token })).status).toBe(
        200,
      );
      const refusals: [string, { field: string; message: string }[]][] = [
        [
          'from=2025-03-01&to=2025-04-01',
          [{ field: 'to', message: 'from to to covers at most 31 days: to must be on or before 2025-03-31' }],
        ],
        [
          'from=2025-03-16&to=2025-03-10',
          [{ field: 'to', message: 'to must be on or after from (2025-03-16)' }],
        ],
        ['from=2025-03-10', [{ field: 'to', message: 'to is needed with from' }]],
        ['to=2025-03-10', [{ field: 'from', message: 'from is needed with to' }]],
        [
          'from=2025-03-10&to=2025-03-16&date=2025-03-12&week=11',
          [
            { field: 'date', message: 'send either from and to, or date, not both' },
            { field: 'week', message: 'send either from and to, or week, not both' },
          ],
        ],
      ];
      for (const [query, details] of refusals) {
        const res = await t.get(`/meals?${query}`, { token: student.token });
        expect([query, res.status, res.body]).toEqual([
          query,
          400,
          { success: false, error: 'Validation failed', details },
        ]);
      }
      const badDates = await t.get('/meals?from=2025-02-30&to=someday', { token: student.token });
      expect(badDates.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['from', 'to']);
    });

    it('says a week or year that is not a whole number must be an integer', async () => {
      for (const [query, field] of [
        ['week=abc', 'week'],
        ['week=11&year=twenty', 'year'],
        ['week=1.5', 'week'],
      ]) {
        const res = await t.get(`/meals?${query}`, { token: student.token });
        expect([res.status, res.body.details]).toEqual([
          400,
          [{ field, message: `${field} must be an integer number` }],
        ]);
      }
    });
  });

  describe('ownership after a demotion', () => {
    it('refuses a publisher who is no longer a manager; the admin still may', async () => {
      const former = await t.member('manager');
      const theirs = await publish(former.token, { date: '2025-05-02', mealType: 'Lunch', dishes: ['Rice'] });
      expect((await t.put(`/users/${former.id}/role`, { role: 'treasurer' }, { token: admin })).status).toBe(
        200,
      );
      const refused = { success: false, error: 'Only a manager can change the menus they published' };
      const change = { date: '2025-05-02', mealType: 'Lunch', dishes: ['Biryani'] };
      const put = await t.put(`/meals/${theirs._id}`, change, { token: former.token });
      expect([put.status, put.body]).toEqual([403, refused]);
      const del = await t.delete(`/meals/${theirs._id}`, { token: former.token });
      expect([del.status, del.body]).toEqual([403, refused]);
      expect((await t.get(`/meals/${theirs._id}`, { token: student.token })).body.meal).toEqual(theirs);
      expect((await t.delete(`/meals/${theirs._id}`, { token: admin })).status).toBe(200);
    });
  });

  describe('bad input changes nothing', () => {
    let kept: Record<string, unknown>;
    beforeAll(async () => {
      kept = await publish(manager.token, {
        date: '2025-06-01',
        mealType: 'Lunch',
        dishes: ['Rice'],
        notes: 'kept',
      });
    });

    const valid = { date: '2025-06-02', mealType: 'Lunch', dishes: ['Rice'] };
    const cases: [string, Record<string, unknown>, string[]][] = [
      ['an unknown meal type', { ...valid, mealType: 'Dinner' }, ['mealType']],
      ['a meal type in the wrong case', { ...valid, mealType: 'lunch' }, ['mealType']],
      ['no dishes', { ...valid, dishes: [] }, ['dishes']],
      ['a blank dish', { ...valid, dishes: ['Rice', '  '] }, ['dishes']],
      ['a dish that is not text', { ...valid, dishes: ['Rice', 7] }, ['dishes']],
      ['too many dishes', { ...valid, dishes: Array.from({ length: 31 }, (_, i) => `D${i}`) }, ['dishes']],
      ['a dish too long', { ...valid, dishes: ['x'.repeat(101)] }, ['dishes']],
      ['an impossible date', { ...valid, date: '2025-02-30' }, ['date']],
      ['notes too long', { ...valid, notes: 'x'.repeat(501) }, ['notes']],
      ['null notes', { ...valid, notes: null }, ['notes']],
      ['a NUL in a dish', { ...valid, dishes: ['Ri\u0000ce'] }, ['dishes']],
      ['a control character in the notes', { ...valid, notes: 'bell\u0007' }, ['notes']],
      ['missing fields', { notes: 'x' }, ['date', 'dishes', 'mealType']],
      ['an unknown field', { ...valid, createdBy: UNKNOWN_ID }, ['createdBy']],
    ];

    it.each(cases)('POST with %s is 400', async (_case, body, fields) => {
      const res = await t.post('/meals', body, { token: manager.token });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, error: 'Validation failed', details: expect.any(Array) });
      expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual(fields);
      expect(await onDate('2025-06-02')).toEqual([]);
    });

    it.each(cases)('PUT with %s is 400', async (_case, body, fields) => {
      const res = await t.put(`/meals/${kept._id as string}`, body, { token: manager.token });
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual(fields);
      expect((await t.get(`/meals/${kept._id as string}`, { token: manager.token })).body.meal).toEqual(kept);
    });

    it('400 for a malformed id and 404 for an unknown one, on every route with an id', async () => {
      for (const res of [
        await t.get('/meals/not-a-uuid', { token: manager.token }),
        await t.put('/meals/not-a-uuid', valid, { token: manager.token }),
        await t.delete('/meals/42', { token: manager.token }),
      ]) {
        expect([res.status, res.body]).toEqual([
          400,
          { success: false, error: 'Invalid id: expected a UUID' },
        ]);
      }
      for (const res of [
        await t.get(`/meals/${UNKNOWN_ID}`, { token: manager.token }),
        await t.put(`/meals/${UNKNOWN_ID}`, valid, { token: manager.token }),
        await t.delete(`/meals/${UNKNOWN_ID}`, { token: admin }),
      ]) {
        expect([res.status, res.body]).toEqual([404, { success: false, error: 'Meal not found' }]);
      }
      expect(await onDate('2025-06-01')).toEqual([kept]);
    });

    it.each([
      ['an impossible date', 'date=2025-02-30', ['date']],
      ['week 0', 'week=0', ['week']],
      ['week 54', 'week=54', ['week']],
      ['a week that is not a number', 'week=eleven', ['week']],
      ['a year out of range', 'week=1&year=99', ['year']],
      ['year without week', 'year=2025', ['year']],
      ['date with week', 'date=2025-03-12&week=11', ['date']],
      ['an unknown parameter', 'month=2025-03', ['month']],
    ])('GET with %s is 400', async (_case, query, fields) => {
      const res = await t.get(`/meals?${query}`, { token: student.token });
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual(fields);
    });
  });

  describe('domain events', () => {
    let emitter: EventEmitter2;
    const received: { name: string; payload: MealEvent; committed: Promise<unknown> }[] = [];
    const listeners: [string, (payload: MealEvent) => void][] = [];

    beforeAll(() => {
      emitter = t.app.get(EventEmitter2);
      const { db } = t.app.get(Database);
      for (const name of ['meal.published', 'meal.changed', 'meal.deleted']) {
        const listener = (payload: MealEvent) => {
          received.push({
            name,
            payload,
            committed: db.select().from(meals).where(eq(meals.id, payload.mealId)).execute(),
          });
        };
        emitter.on(name, listener);
        listeners.push([name, listener]);
      }
    });
    afterAll(() => listeners.forEach(([name, listener]) => emitter.off(name, listener)));
    beforeEach(() => {
      received.length = 0;
    });

    it('publishes nothing for a refused write, and a failing listener does not fail the request', async () => {
      const meal = await publish(manager.token, { date: '2025-07-03', mealType: 'Lunch', dishes: ['Rice'] });
      await t.app.get(OutboxRelay).idle(); // a durable event: handed on by the relay after the commit
      received.length = 0;
      await t.post(
        '/meals',
        { date: '2025-07-03', mealType: 'Lunch', dishes: ['Again'] },
        { token: manager.token },
      );
      await t.put(
        `/meals/${meal._id}`,
        { date: '2025-07-03', mealType: 'Lunch', dishes: ['X'] },
        {
          token: otherManager.token,
        },
      );
      await t.post(
        '/meals',
        { date: '2025-07-03', mealType: 'Dinner', dishes: ['X'] },
        { token: manager.token },
      );
      await t.app.get(OutboxRelay).idle();
      expect(received).toEqual([]);

      const failing = () => {
        throw new Error('listener down');
      };
      emitter.on('meal.published', failing);
      try {
        const res = await t.post(
          '/meals',
          { date: '2025-07-04', mealType: 'Lunch', dishes: ['Rice'] },
          {
            token: manager.token,
          },
        );
        expect(res.status).toBe(201);
        expect(ids(await onDate('2025-07-04'))).toEqual([res.body.meal._id]);
      } finally {
        emitter.off('meal.published', failing);
      }
    });
  });
});
