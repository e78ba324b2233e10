import { Clock } from '../../src/common/time/clock';
import { TestApp } from '../support/app';
import { ids, type Member, publishMeal, startMealsApp } from '../support/meals';

/** GET /meals by ISO week, in the mess's time zone and by its clock. */
describe('Meals: reading by week', () => {
  let t: TestApp;
  let admin: string;
  let manager: Member;
  let otherManager: Member;
  let student: Member;

  beforeAll(async () => {
    ({ t, admin, manager, otherManager, student } = await startMealsApp());
  });
  afterAll(() => t?.close());
  afterEach(() => jest.restoreAllMocks());

  const publish = (token: string, body: Record<string, unknown>) => publishMeal(t, token, body);

  // The menus the guards of meals-publishing leave in ISO week 1 of 2025 (that file's first two menus of 2025):
  // the week-1 test below counts them.
  beforeAll(async () => {
    await publish(manager.token, { date: '2025-01-01', mealType: 'Breakfast', dishes: ['Poha'] });
    await publish(admin, { date: '2025-01-02', mealType: 'Breakfast', dishes: ['Idli'] });
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
});
