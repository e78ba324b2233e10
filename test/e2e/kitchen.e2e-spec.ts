import { addDays, localParts, monthOf } from '../../src/common/time/dates';
import { inMess } from '../../src/common/tenancy/mess-scope';
import { ForecastSchedule } from '../../src/modules/kitchen';
import { ForecastService } from '../../src/modules/kitchen/forecast.service';
import { KitchenRepository } from '../../src/modules/kitchen/kitchen.repository';
import { messSetup, TestApp } from '../support/app';
import { insertSimulatedMess } from '../support/kitchen-history';
import { actualsOf, simulateMess, type SimulatedMess } from '../support/kitchen-simulator';

type Member = Awaited<ReturnType<TestApp['member']>>;
const ZONE = 'Asia/Kolkata';
const MEALS = ['Breakfast', 'Lunch', 'Dinner'];

const fields = (res: { body: { details?: { field: string }[] } }) =>
  (res.body.details ?? []).map((d) => d.field).sort();

/**
 * Cooking for the right number (extension 2.3): the forecast's shape and validation, the back-test's rows against
 * an independent recomputation from the marks, the waste log (validation, replacement, audit, the month's summary)
 * and two messes that never see each other's kitchen. The main mess holds 20 weeks of a simulated history ending
 * yesterday, with a festival break in its last four weeks.
 */
describe('Kitchen', () => {
  let t: TestApp;
  let admin: string;
  let manager: Member;
  let treasurer: Member;
  let student: Member;
  let otherManager: Member;
  let otherMessId: string;
  let mess: SimulatedMess;
  let today: string;
  let yesterday: string;

  beforeAll(async () => {
    t = await TestApp.start({ MESS_TIMEZONE: ZONE });
    admin = await t.adminToken();
    expect((await t.post('/auth/admin/setup', messSetup(), { token: admin })).status).toBe(200);
    const made = await t.post('/messes', messSetup({ messName: 'Girls Mess', slug: 'girls' }), {
      token: admin,
    });
    expect(made.status).toBe(201);
    otherMessId = made.body.mess._id;
    manager = await t.member('manager', { fullName: 'Meera Manager' });
    treasurer = await t.member('treasurer');
    student = await t.member('student');
    otherManager = await t.member('manager', { messId: otherMessId });
    today = localParts(new Date(), ZONE).date;
    yesterday = addDays(today, -1);
    mess = simulateMess({
      seed: 41,
      members: 80,
      start: addDays(today, -140),
      historyWeeks: 16,
      testWeeks: 4,
      festival: { firstDay: 16 * 7 + 8, days: 4, leaveShare: 0.6 },
      examWeeks: [10],
    });
    const main = (await t.get('/messes/main', { token: admin })).body.mess._id as string;
    await insertSimulatedMess(t, mess, { messId: main, publisherId: manager.id, timeZone: ZONE });
  }, 180_000);
  afterAll(() => t?.close());

  describe('GET /kitchen/forecast', () => {
    it('forecasts every configured meal of the next seven days, by date then meal time', async () => {
      const res = await t.get('/kitchen/forecast', { token: manager.token });
      expect(res.status).toBe(200);
      const { forecasts } = res.body;
      expect(forecasts.map((f: { date: string; mealType: string }) => `${f.date} ${f.mealType}`)).toEqual(
        [0, 1, 2, 3, 4, 5, 6].flatMap((i) => MEALS.map((m) => `${addDays(today, i)} ${m}`)),
      );
      // The simulated members, and the three staff of the main mess who dine.
      const members = mess.members.length + 3;
      for (const f of forecasts) {
        expect(Object.keys(f).sort()).toEqual(
          ['basis', 'date', 'declared', 'expected', 'high', 'low', 'mealType', 'members', 'onLeave'].sort(),
        );
        expect(f.members).toBe(members);
        for (const n of [f.expected, f.low, f.high, f.onLeave]) expect(Number.isInteger(n)).toBe(true);
        expect(0 <= f.low && f.low <= f.expected && f.expected <= f.high).toBe(true);
        expect(f.high).toBeLessThanOrEqual(f.members - f.onLeave);
        expect(f.expected).toBeGreaterThan(0);
        expect(f.basis).toMatch(/^\d+ days of attendance \(/);
      }
    });

    it('counts the marks already made for a coming meal in `declared`, and no fewer plates', async () => {
      const tomorrow = addDays(today, 1);
      const declared = mess.members.slice(0, 30);
      const res = await t.post(
        '/attendance/bulk',
        {
          date: tomorrow,
          mealType: 'Lunch',
          marks: declared.map((m) => ({ userId: m.id, status: 'present' })),
        },
        { token: manager.token },
      );
      expect(res.status).toBeLessThan(300);
      const { body } = await t.get(`/kitchen/forecast?from=${tomorrow}&to=${tomorrow}`, {
        token: manager.token,
      });
      const lunch = body.forecasts[1];
      expect(lunch.mealType).toBe('Lunch');
      expect(lunch.declared.present).toBe(30 - declared.filter((m) => onLeaveAt(m.id, tomorrow)).length);
      expect(lunch.low).toBeGreaterThanOrEqual(lunch.declared.present);
    });

    it('names each bad query field (400), and is for managers and admins only', async () => {
      const bad = async (query: string, expected: string[]) => {
        const res = await t.get(`/kitchen/forecast?${query}`, { token: manager.token });
        expect([query, res.status, fields(res)]).toEqual([query, 400, expected]);
      };
      await bad('from=2025-02-30', ['from']);
      await bad('from=2025-02-30&to=tomorrow', ['from', 'to']);
      await bad(`from=${today}&to=${addDays(today, -1)}`, ['to']);
      await bad(`from=${today}&to=${addDays(today, 14)}`, ['to']);
      expect(
        (await t.get(`/kitchen/forecast?from=${today}&to=${addDays(today, 13)}`, { token: admin })).status,
      ).toBe(200);
      for (const token of [treasurer.token, student.token]) {
        expect((await t.get('/kitchen/forecast', { token })).status).toBe(403);
      }
      expect((await t.get('/kitchen/forecast')).status).toBe(401);
    });
  });

  describe('GET /kitchen/forecast/accuracy', () => {
    it('back-tests the last 28 days: rows that an independent recomputation from the marks reproduces', async () => {
      const res = await t.get('/kitchen/forecast/accuracy', { token: manager.token });
      expect(res.status).toBe(200);
      const { days, summary } = res.body;
      const from = addDays(today, -28);
      // Every meal had a menu: each date and meal time, in order.
      expect(days.map((d: { date: string; mealType: string }) => `${d.date} ${d.mealType}`)).toEqual(
        [...Array(28).keys()].flatMap((i) => MEALS.map((m) => `${addDays(from, i)} ${m}`)),
      );
      const actual = actualsOf(mess);
      let error = 0;
      let signed = 0;
      let total = 0;
      let baselineError = 0;
      for (const day of days) {
        expect(day.actual).toBe(actual.get(`${day.date}|${day.mealType}`) ?? 0);
        error += Math.abs(day.forecast - day.actual);
        signed += day.forecast - day.actual;
        total += day.actual;
        baselineError += Math.abs((actual.get(`${addDays(day.date, -7)}|${day.mealType}`) ?? 0) - day.actual);
      }
      const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
      expect(summary).toEqual({
        wape: round4(error / total),
        bias: round4(signed / total),
        meals: 84,
        baseline: { method: 'same meal last week', wape: round4(baselineError / total) },
      });
      console.log(
        `kitchen back-test of a simulated mess of ${mess.members.length}: ${JSON.stringify(summary)}`,
      );
      expect(summary.wape).toBeLessThan(summary.baseline.wape);
    });

    it("gives a past day's forecast as the back-test made it: what was known the evening before", async () => {
      const day = addDays(today, -10);
      const [forecast, accuracy] = await Promise.all([
        t.get(`/kitchen/forecast?from=${day}&to=${day}`, { token: manager.token }),
        t.get(`/kitchen/forecast/accuracy?from=${day}&to=${day}`, { token: manager.token }),
      ]);
      expect(forecast.body.forecasts.map((f: { expected: number }) => f.expected)).toEqual(
        accuracy.body.days.map((d: { forecast: number }) => d.forecast),
      );
      expect(
        forecast.body.forecasts.every((f: { declared: object }) =>
          Object.values(f.declared).every((n) => n === 0),
        ),
      ).toBe(true);
    });

    it('refuses dates that are not past and ranges over 92 days, naming each field', async () => {
      const bad = async (query: string, expected: string[]) => {
        const res = await t.get(`/kitchen/forecast/accuracy?${query}`, { token: manager.token });
        expect([query, res.status, fields(res)]).toEqual([query, 400, expected]);
      };
      await bad(`from=${today}&to=${today}`, ['from', 'to']);
      await bad(`to=${today}`, ['to']);
      await bad(`from=${addDays(today, -2)}&to=${addDays(today, -3)}`, ['to']);
      await bad(`from=${addDays(today, -93)}&to=${yesterday}`, ['to']);
      await bad('from=yesterday', ['from']);
      expect((await t.get('/kitchen/forecast/accuracy', { token: treasurer.token })).status).toBe(403);
    });
  });

  describe('the waste log', () => {
    const put = (date: string, mealType: string, body: Record<string, unknown>, token = manager.token) =>
      t.put(`/kitchen/waste/${date}/${mealType}`, body, { token });

    it('records a meal, replaces it with a second record, and audits both', async () => {
      const first = await put(yesterday, 'Lunch', { preparedPlates: 70, leftoverKg: 4.25, note: 'Rain' });
      expect(first.status).toBe(200);
      expect(first.body.waste).toMatchObject({
        date: yesterday,
        mealType: 'Lunch',
        preparedPlates: 70,
        leftoverKg: 4.25,
        note: 'Rain',
        recordedBy: { _id: manager.id, fullName: 'Meera Manager' },
      });
      const second = await put(yesterday, 'Lunch', { leftoverKg: 3.125 }, admin);
      expect(second.status).toBe(200);
      expect(second.body.waste).toMatchObject({
        _id: first.body.waste._id,
        preparedPlates: null,
        leftoverKg: 3.125,
        note: '',
      });
      const audit = await t.get(`/audit?entity=waste&entityId=${first.body.waste._id}`, {
        token: treasurer.token,
      });
      expect(audit.body.events.map((e: { action: string }) => e.action).sort()).toEqual([
        'created',
        'replaced',
      ]);
      const replaced = audit.body.events.find((e: { action: string }) => e.action === 'replaced');
      expect(replaced.before).toMatchObject({ leftoverGrams: 4250, preparedPlates: 70 });
      expect(replaced.after).toMatchObject({ leftoverGrams: 3125, preparedPlates: null });
    });

    it('sums the month: leftover kilograms and grams per diner of the meals with a record', async () => {
      const dinner = await put(yesterday, 'Dinner', { leftoverKg: 2 });
      expect(dinner.status).toBe(200);
      const month = monthOf(yesterday);
      for (const token of [manager.token, treasurer.token]) {
        const res = await t.get(`/kitchen/waste?month=${month}`, { token });
        expect(res.status).toBe(200);
        const actual = actualsOf(mess);
        const lunch = actual.get(`${yesterday}|Lunch`)!;
        const dinners = actual.get(`${yesterday}|Dinner`)!;
        expect(res.body.month).toBe(month);
        expect(res.body.entries.map((e: { mealType: string }) => e.mealType)).toEqual(['Dinner', 'Lunch']);
        expect(res.body.summary).toEqual({
          leftoverKg: 5.125,
          perDinerGrams: Math.round(5125 / (lunch + dinners)),
          byMealType: {
            Lunch: { leftoverKg: 3.125, perDinerGrams: Math.round(3125 / lunch) },
            Dinner: { leftoverKg: 2, perDinerGrams: Math.round(2000 / dinners) },
          },
        });
      }
      expect((await t.get('/kitchen/waste', { token: student.token })).status).toBe(403);
      expect((await t.get('/kitchen/waste?month=2025-13', { token: manager.token })).status).toBe(400);
    });

    it('names every bad field (400), refuses a meal not started (409), and changes nothing', async () => {
      const before = (await t.get(`/kitchen/waste?month=${monthOf(yesterday)}`, { token: manager.token }))
        .body;
      const cases: [Record<string, unknown>, string[]][] = [
        [{}, ['leftoverKg']],
        [{ leftoverKg: 1.2345 }, ['leftoverKg']],
        [{ leftoverKg: -1 }, ['leftoverKg']],
        [{ leftoverKg: 10_000.001 }, ['leftoverKg']],
        [{ leftoverKg: '3' }, ['leftoverKg']],
        [{ leftoverKg: 1, preparedPlates: 1.5 }, ['preparedPlates']],
        [{ leftoverKg: 1, preparedPlates: 100_001 }, ['preparedPlates']],
        [{ leftoverKg: 1, note: 'x'.repeat(501) }, ['note']],
        [{ leftoverKg: -1, preparedPlates: -1, note: null }, ['leftoverKg', 'note', 'preparedPlates']],
      ];
      for (const [body, expected] of cases) {
        const res = await put(yesterday, 'Breakfast', body);
        expect([body, res.status, fields(res)]).toEqual([body, 400, expected]);
      }
      for (const [date, meal, expected] of [
        ['2025-02-30', 'Lunch', ['date']],
        [yesterday, 'Supper', ['mealType']],
        ['yesterday', 'Supper', ['date', 'mealType']],
      ] as const) {
        const res = await put(date, meal, { leftoverKg: 1 });
        expect([date, meal, res.status, fields(res)]).toEqual([date, meal, 400, expected]);
      }
      // A bad path and a bad body: one 400 names every field of both, each with its own message.
      for (const [date, meal, body, expected] of [
        ['2025-02-30', 'Lunch', { leftoverKg: -1 }, ['date', 'leftoverKg']],
        [yesterday, 'Supper', { leftoverKg: 1, preparedPlates: 1.5 }, ['mealType', 'preparedPlates']],
        ['yesterday', 'Supper', {}, ['date', 'leftoverKg', 'mealType']],
        ['yesterday', 'Lunch', { leftoverKg: 1, extra: true }, ['date', 'extra']],
      ] as const) {
        const res = await put(date, meal, body);
        expect([date, meal, body, res.status, fields(res)]).toEqual([date, meal, body, 400, expected]);
        expect(res.body).toMatchObject({ success: false, error: 'Validation failed' });
        const mealType = res.body.details.find((d: { field: string }) => d.field === 'mealType');
        if (mealType) expect(mealType.message).toBe('mealType must be one of Breakfast, Lunch, Dinner');
      }
      const notYet = await put(addDays(today, 1), 'Breakfast', { leftoverKg: 1 });
      expect([notYet.status, notYet.body.error]).toEqual([
        409,
        'The meal has not started yet: record its waste once it is served',
      ]);
      expect((await put(yesterday, 'Breakfast', { leftoverKg: 1 }, treasurer.token)).status).toBe(403);
      const after = (await t.get(`/kitchen/waste?month=${monthOf(yesterday)}`, { token: manager.token }))
        .body;
      expect(after).toEqual(before);
    });
  });

  describe('two messes', () => {
    it("never shows one mess's kitchen to the other's manager", async () => {
      const other = otherManager.token;
      const waste = await t.get(`/kitchen/waste?month=${monthOf(yesterday)}`, { token: other });
      expect(waste.body.entries).toEqual([]);
      expect(waste.body.summary).toEqual({ leftoverKg: 0, perDinerGrams: null, byMealType: {} });
      // Its own record of the same meal is its own; the main mess's stays as it was.
      expect(
        (await t.put(`/kitchen/waste/${yesterday}/Lunch`, { leftoverKg: 9 }, { token: other })).status,
      ).toBe(200);
      const main = await t.get(`/kitchen/waste?month=${monthOf(yesterday)}`, { token: manager.token });
      expect(main.body.summary.byMealType.Lunch.leftoverKg).toBe(3.125);
      const mine = await t.get(`/kitchen/waste?month=${monthOf(yesterday)}`, { token: other });
      expect(mine.body.entries.map((e: { leftoverKg: number }) => e.leftoverKg)).toEqual([9]);
      // Its forecast counts its own one diner and no history; its back-test has no menus, so no meals.
      const forecast = await t.get(`/kitchen/forecast?from=${today}&to=${today}`, { token: other });
      expect(forecast.body.forecasts.map((f: { members: number }) => f.members)).toEqual([1, 1, 1]);
      expect(forecast.body.forecasts[0].basis).toMatch(/^No attendance before this date yet/);
      const accuracy = await t.get('/kitchen/forecast/accuracy', { token: other });
      expect(accuracy.body).toEqual({
        success: true,
        days: [],
        summary: {
          wape: null,
          bias: null,
          meals: 0,
          baseline: { method: 'same meal last week', wape: null },
        },
      });
      // Naming the main mess is refused to the other's manager; an admin may.
      expect((await t.get('/kitchen/waste?mess=main', { token: other })).status).toBe(403);
      const asAdmin = await t.get(`/kitchen/waste?mess=girls&month=${monthOf(yesterday)}`, { token: admin });
      expect(asAdmin.body.entries.map((e: { leftoverKg: number }) => e.leftoverKg)).toEqual([9]);
    });
  });

  describe("the university's view", () => {
    it("shows each mess's plates expected tomorrow (as last forecast) and its leftover grams per diner", async () => {
      const month = monthOf(yesterday);
      const tomorrow = addDays(today, 1);
      // The hourly tick forecasts tomorrow in every mess and stores it.
      expect(await t.app.get(ForecastSchedule).forecastTomorrow()).toBe(2);
      const view = await t.get(`/analytics/messes?month=${month}`, { token: admin });
      expect(view.status).toBe(200);
      for (const slug of ['main', 'girls']) {
        const row = view.body.messes.find((r: { mess: { slug: string } }) => r.mess.slug === slug);
        const q = `mess=${slug}&month=${month}`;
        const forecast = await t.get(`/kitchen/forecast?mess=${slug}&from=${tomorrow}&to=${tomorrow}`, {
          token: admin,
        });
        const plates = forecast.body.forecasts.reduce(
          (s: number, f: { expected: number }) => s + f.expected,
          0,
        );
        const waste = (await t.get(`/kitchen/waste?${q}`, { token: admin })).body.summary;
        expect([slug, row.expectedPlatesTomorrow, row.leftoverGramsPerDiner]).toEqual([
          slug,
          plates,
          waste.perDinerGrams,
        ]);
      }
      expect(
        view.body.messes.find((r: { mess: { slug: string } }) => r.mess.slug === 'main')
          .leftoverGramsPerDiner,
      ).toBeGreaterThan(0);
    });
  });

  // Last two: they change yesterday's marks.
  describe('the model kept for today', () => {
    const fromToday = async () =>
      (await t.get('/kitchen/forecast', { token: manager.token })).body.forecasts as { date: string }[];
    // The same forecast with no model kept: the window read and fitted afresh.
    const fitted = async () => {
      const main = (await t.get('/messes/main', { token: admin })).body.mess._id as string;
      await inMess(main, () => t.app.get(ForecastService).forget());
      return fromToday();
    };

    it('forecasts what a fresh fit does, and fits again (after the response) when a mark of a past day changes', async () => {
      const before = await fromToday();
      expect(await fromToday()).toEqual(before);
      expect(await fitted()).toEqual(before);
      // Yesterday's dinner: 60 members marked absent (a change the kept model was not fitted from).
      const res = await t.post(
        '/attendance/bulk',
        {
          date: yesterday,
          mealType: 'Dinner',
          marks: mess.members.slice(0, 60).map((m) => ({ userId: m.id, status: 'absent' })),
        },
        { token: manager.token },
      );
      expect(res.status).toBeLessThan(300);
      // The listener runs after the response: wait for it to mark the kept model out of date (bounded).
      const main = (await t.get('/messes/main', { token: admin })).body.mess._id as string;
      const current = () =>
        inMess(main, async () => (await t.app.get(KitchenRepository).keptModel())?.current);
      for (let i = 0; i < 200 && (await current()); i += 1)
        await new Promise((resolve) => setImmediate(resolve));
      expect(await current()).toBe(false);
      // The next forecast answers from the model as it stands and fits it again after the response; once that
      // fit is done, the forecast is a fresh fit's.
      expect(await fromToday()).toEqual(before);
      await inMess(main, () => t.app.get(ForecastService).settled());
      expect(await current()).toBe(true);
      const after = await fromToday();
      expect(after).not.toEqual(before);
      expect(await fitted()).toEqual(after);
    });
  });

  describe('the present marks kept with a waste record', () => {
    it("follow a mark of the meal changed after it was recorded: the university's view stays the log's", async () => {
      const month = monthOf(yesterday);
      const perDiner = async () =>
        (await t.get(`/analytics/messes?month=${month}`, { token: admin })).body.messes.find(
          (r: { mess: { slug: string } }) => r.mess.slug === 'main',
        ).leftoverGramsPerDiner as number | null;
      const logged = async () =>
        (await t.get(`/kitchen/waste?month=${month}`, { token: manager.token })).body.summary
          .perDinerGrams as number | null;
      const put = await t.put(
        `/kitchen/waste/${yesterday}/Breakfast`,
        { leftoverKg: 25 },
        { token: manager.token },
      );
      expect(put.status).toBe(200);
      const before = await logged();
      expect(await perDiner()).toBe(before);
      // Yesterday's breakfast: 50 members marked absent after the record.
      const res = await t.post(
        '/attendance/bulk',
        {
          date: yesterday,
          mealType: 'Breakfast',
          marks: mess.members.slice(0, 50).map((m) => ({ userId: m.id, status: 'absent' })),
        },
        { token: manager.token },
      );
      expect(res.status).toBeLessThan(300);
      const after = await logged();
      expect(after).not.toBe(before);
      // The count is kept by a listener after the response: wait for it (bounded), not for a time.
      for (let i = 0; i < 200 && (await perDiner()) !== after; i += 1)
        await new Promise((resolve) => setImmediate(resolve));
      expect(await perDiner()).toBe(after);
    });
  });

  const onLeaveAt = (userId: string, date: string) =>
    mess.leaves.some((l) => l.userId === userId && l.startDate <= date && date <= l.endDate);
});
