import { Clock } from '../../src/common/time/clock';
import { RotationSchedule } from '../../src/modules/meals/rotation.schedule';
import { messSetup, type TestApp } from '../support/app';
import { mealsOn, type Member, publishMeal, startMealsApp } from '../support/meals';

/**
 * The weekly menu (extension 2.2): a rotation of 1–6 weeks from a Monday, published as ordinary menus with
 * `source: 'rotation'` for today and the next 13 days into empty slots; a manager's menu, edit and withdrawal win;
 * changing or deleting it withdraws only its unedited menus of the coming days; per mess.
 */
describe('Meals: the weekly menu', () => {
  let t: TestApp;
  let admin: string;
  let manager: Member;
  let otherManager: Member;
  let student: Member;

  // Wednesday 12 March 2025, 08:30 in India: Breakfast (07:30) has started, Lunch (12:30) has not.
  const NOW = new Date('2025-03-12T03:00:00Z');
  const TODAY = '2025-03-12';
  const STARTS_ON = '2025-03-03'; // a Monday, nine days before
  const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

  const plus = (date: string, days: number) =>
    new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
  const daysBetween = (a: string, b: string) => Math.round((Date.parse(b) - Date.parse(a)) / 86_400_000);
  /** The test's own reckoning of a date's week and day in the rotation. */
  const slotOf = (date: string, startsOn: string, weeks: number) => ({
    week: (Math.floor(daysBetween(startsOn, date) / 7) % weeks) + 1,
    day: DAYS[(new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7],
  });
  const dish = (tag: string, week: number, day: string, meal: string) => `${tag} W${week} ${day} ${meal}`;
  const rotation = (tag: string, meals: string[], weeks = 2, startsOn = STARTS_ON) => ({
    startsOn,
    weeks,
    entries: Array.from({ length: weeks }, (_, w) =>
      DAYS.flatMap((day) =>
        meals.map((mealType) => ({
          week: w + 1,
          day,
          mealType,
          dishes: [dish(tag, w + 1, day, mealType), 'Curd'],
          notes: `${tag} notes`,
        })),
      ),
    ).flat(),
  });
  const onDate = (date: string) => mealsOn(t, student.token, date);
  const slot = async (date: string, mealType: string) =>
    (await onDate(date)).find((m: { mealType: string }) => m.mealType === mealType);

  beforeAll(async () => {
    ({ t, admin, manager, otherManager, student } = await startMealsApp());
    jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => NOW);
  });
  afterAll(() => t?.close());

  it('has no rotation by default, and a member may not set one', async () => {
    const read = await t.get('/meals/rotation', { token: student.token });
    expect([read.status, read.body]).toEqual([200, { success: true, rotation: null }]);
    const put = await t.put('/meals/rotation', rotation('v1', ['Lunch']), { token: student.token });
    expect(put.status).toBe(403);
    expect((await t.delete('/meals/rotation', { token: student.token })).status).toBe(403);
    expect(await onDate(TODAY)).toEqual([]);
  });

  it('refuses bad input naming each field, and changes nothing', async () => {
    const shape = await t.put(
      '/meals/rotation',
      {
        startsOn: '2025-02-30',
        weeks: 7,
        entries: [
          { week: 1, day: 'Mon', mealType: 'Lunch', dishes: ['Rice'] },
          { week: 1, day: 'Xyz', mealType: 'Lunch', dishes: ['Rice'] },
          { week: 1, day: 'Tue', mealType: 'Lunch', dishes: [] },
          { week: 1, day: 'Wed', mealType: 'Lunch', dishes: ['Rice'], notes: 'x'.repeat(501) },
        ],
      },
      { token: manager.token },
    );
    expect(shape.status).toBe(400);
    expect(shape.body.details.map((d: { field: string }) => d.field).sort()).toEqual(
      ['entries.1.day', 'entries.2.dishes', 'entries.3.notes', 'startsOn', 'weeks'].sort(),
    );

    const rules = await t.put(
      '/meals/rotation',
      {
        startsOn: '2025-03-04', // a Tuesday
        weeks: 2,
        entries: [
          { week: 1, day: 'Mon', mealType: 'Lunch', dishes: ['Rice'] },
          { week: 3, day: 'Mon', mealType: 'Lunch', dishes: ['Rice'] },
          { week: 1, day: 'Mon', mealType: 'Brunch', dishes: ['Rice'] },
          { week: 1, day: 'Mon', mealType: 'Lunch', dishes: ['Dal'] },
        ],
      },
      { token: manager.token },
    );
    expect(rules.status).toBe(400);
    expect(rules.body.details.map((d: { field: string }) => d.field).sort()).toEqual(
      ['entries.1.week', 'entries.2.mealType', 'entries.3', 'startsOn'].sort(),
    );
    expect((await t.get('/meals/rotation', { token: student.token })).body.rotation).toBeNull();
    expect(await onDate(TODAY)).toEqual([]);
  });

  it('publishes the right dishes for today and the next 13 days, and no further', async () => {
    const put = await t.put('/meals/rotation', rotation('v1', ['Breakfast', 'Lunch']), {
      token: manager.token,
    });
    expect(put.status).toBe(200);
    expect(put.body.rotation).toEqual({
      startsOn: STARTS_ON,
      weeks: 2,
      entries: expect.any(Array),
      updatedBy: { _id: manager.id, fullName: 'Meera Nair' },
      updatedAt: expect.any(String),
    });
    expect(put.body.rotation.entries).toHaveLength(28);
    expect((await t.get('/meals/rotation', { token: student.token })).body).toEqual(put.body);

    for (let i = 0; i < 14; i++) {
      const date = plus(TODAY, i);
      const { week, day } = slotOf(date, STARTS_ON, 2);
      const menus = await onDate(date);
      expect(
        menus.map((m: { mealType: string; dishes: string[]; source: string }) => [
          m.mealType,
          m.dishes,
          m.source,
        ]),
      ).toEqual([
        ['Breakfast', [dish('v1', week, day, 'Breakfast'), 'Curd'], 'rotation'],
        ['Lunch', [dish('v1', week, day, 'Lunch'), 'Curd'], 'rotation'],
      ]);
    }
    expect(await onDate(plus(TODAY, 14))).toEqual([]);
    expect(await onDate(plus(TODAY, -1))).toEqual([]);
  });

  it("keeps a manager's menu, edit and withdrawal through a change of the rotation", async () => {
    const own = await publishMeal(t, manager.token, {
      date: plus(TODAY, 2),
      mealType: 'Snacks',
      dishes: ['Samosa'],
    });
    expect(own.source).toBe('manager');
    const toEdit = await slot(plus(TODAY, 3), 'Lunch');
    const edit = { date: plus(TODAY, 3), mealType: 'Lunch', dishes: ['Biryani'] };
    expect((await t.put(`/meals/${toEdit._id}`, edit, { token: student.token })).status).toBe(403);
    // a menu of the weekly menu is any manager's to edit; the editor becomes its publisher
    const edited = await t.put(`/meals/${toEdit._id}`, edit, { token: otherManager.token });
    expect([edited.status, edited.body.meal.source]).toEqual([200, 'manager']);
    expect(edited.body.meal.createdBy).toEqual({ _id: otherManager.id, fullName: 'Kiran Rao' });
    const toWithdraw = await slot(plus(TODAY, 4), 'Lunch');
    expect((await t.delete(`/meals/${toWithdraw._id}`, { token: admin })).status).toBe(200);
    const breakfastToday = await slot(TODAY, 'Breakfast');

    const changed = await t.put('/meals/rotation', rotation('v2', ['Breakfast', 'Lunch', 'Snacks']), {
      token: manager.token,
    });
    expect(changed.status).toBe(200);

    expect((await slot(plus(TODAY, 2), 'Snacks')).dishes).toEqual(['Samosa']);
    expect(await slot(plus(TODAY, 3), 'Lunch')).toMatchObject({ dishes: ['Biryani'], source: 'manager' });
    expect(await slot(plus(TODAY, 4), 'Lunch')).toBeUndefined();
    // today's breakfast had started: it stays; today's lunch had not: it is the new one
    expect(await slot(TODAY, 'Breakfast')).toEqual(breakfastToday);
    const { week, day } = slotOf(TODAY, STARTS_ON, 2);
    expect((await slot(TODAY, 'Lunch')).dishes).toEqual([dish('v2', week, day, 'Lunch'), 'Curd']);
    const later = slotOf(plus(TODAY, 5), STARTS_ON, 2);
    expect((await onDate(plus(TODAY, 5))).map((m: { dishes: string[] }) => m.dishes[0])).toEqual(
      ['Breakfast', 'Lunch', 'Snacks'].map((meal) => dish('v2', later.week, later.day, meal)),
    );
  });

  it('publishes the days coming into the range each day, catching up after downtime, each slot once', async () => {
    const schedule = t.app.get(RotationSchedule);
    // three days later, as if the service had been down: today+14 .. today+16 come into the window
    const later = new Date(NOW.getTime() + 3 * 86_400_000);
    const counts = await Promise.all([schedule.publishDue(later), schedule.publishDue(later)]);
    expect(counts[0] + counts[1]).toBe(3 * 3);
    for (const date of [plus(TODAY, 14), plus(TODAY, 15), plus(TODAY, 16)]) {
      const { week, day } = slotOf(date, STARTS_ON, 2);
      expect((await onDate(date)).map((m: { dishes: string[] }) => m.dishes[0])).toEqual(
        ['Breakfast', 'Lunch', 'Snacks'].map((meal) => dish('v2', week, day, meal)),
      );
    }
    // the withdrawn slot stays empty
    expect(await schedule.publishDue(NOW)).toBe(0);
    expect(await slot(plus(TODAY, 4), 'Lunch')).toBeUndefined();
  });

  it('publishes nothing before startsOn', async () => {
    const res = await t.put(
      '/meals/rotation',
      rotation('v3', ['Supper'], 1, '2025-03-17') /* the next Monday */,
      {
        token: manager.token,
      },
    );
    expect(res.status).toBe(200);
    expect(await slot('2025-03-16', 'Supper')).toBeUndefined();
    expect((await slot('2025-03-17', 'Supper')).dishes).toEqual([dish('v3', 1, 'Mon', 'Supper'), 'Curd']);
  });

  it("deleting the rotation withdraws only its unedited menus of the coming days; a manager's publish clears a withdrawal", async () => {
    const breakfastToday = await slot(TODAY, 'Breakfast');
    const del = await t.delete('/meals/rotation', { token: manager.token });
    expect([del.status, del.body]).toEqual([200, { success: true, message: 'Rotation deleted' }]);
    expect((await t.get('/meals/rotation', { token: student.token })).body.rotation).toBeNull();
    expect(await slot(TODAY, 'Breakfast')).toEqual(breakfastToday);
    expect(await slot(TODAY, 'Supper')).toBeUndefined();
    expect((await onDate(plus(TODAY, 2))).map((m: { dishes: string[] }) => m.dishes)).toEqual([['Samosa']]);
    expect((await onDate(plus(TODAY, 3))).map((m: { dishes: string[] }) => m.dishes)).toEqual([['Biryani']]);
    for (let i = 4; i < 17; i++) expect(await onDate(plus(TODAY, i))).toEqual([]);

    // a manager publishes the withdrawn slot again, then withdraws it: it is withdrawn once more
    const again = await publishMeal(t, manager.token, {
      date: plus(TODAY, 4),
      mealType: 'Lunch',
      dishes: ['Pulao'],
    });
    expect((await t.delete(`/meals/${again._id}`, { token: manager.token })).status).toBe(200);
    expect((await t.put('/meals/rotation', rotation('v4', ['Lunch']), { token: manager.token })).status).toBe(
      200,
    );
    expect(await slot(plus(TODAY, 4), 'Lunch')).toBeUndefined();
    expect((await slot(plus(TODAY, 5), 'Lunch')).source).toBe('rotation');

    // the audit trail: every set and the delete, newest first, by the manager
    const audit = await t.get('/audit?entity=rotation&limit=100', { token: admin });
    expect(audit.status).toBe(200);
    expect(audit.body.events.map((e: { action: string }) => e.action)).toEqual([
      'set',
      'deleted',
      'set',
      'set',
      'set',
    ]);
    expect(audit.body.events[1]).toMatchObject({
      entity: 'rotation',
      before: { weeks: 1, startsOn: '2025-03-17' },
    });
  });

  it('acts per mess: a rotation in one mess publishes nothing in another', async () => {
    const made = await t.post('/messes', messSetup({ messName: 'Girls Mess', slug: 'girls' }), {
      token: admin,
    });
    expect(made.status).toBe(201);
    expect((await t.get('/meals/rotation?mess=girls', { token: admin })).body.rotation).toBeNull();
    const set = await t.put('/meals/rotation?mess=girls', rotation('girls', ['Dinner']), { token: admin });
    expect(set.status).toBe(200);
    const girls = await t.get(`/meals?date=${plus(TODAY, 6)}&mess=girls`, { token: admin });
    expect(girls.body.meals.map((m: { mealType: string }) => m.mealType)).toEqual(['Dinner']);
    // the first mess has its own rotation's Lunch and no Dinner
    expect((await onDate(plus(TODAY, 6))).map((m: { mealType: string }) => m.mealType)).toEqual(['Lunch']);
    expect((await t.get('/meals/rotation', { token: student.token })).body.rotation.entries[0].mealType).toBe(
      'Lunch',
    );
  });
});
