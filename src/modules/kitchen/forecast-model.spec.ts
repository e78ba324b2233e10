import { addDays } from '../../common/time/dates';
import {
  actualsOf,
  leaveSlotsOf,
  seededRandom,
  simulateMess,
  type SimulatedMess,
} from '../../../test/support/kitchen-simulator';
import {
  accuracy,
  adaptModel,
  DEFAULT_TUNING,
  type FittedModel,
  type ForecastTuning,
  type KitchenMark,
  KitchenForecaster,
} from './forecast-model';

/** The test period forecast day by day as of the evening before; WAPE, the baseline's and the interval's coverage. */
function backTest(mess: SimulatedMess, tuning: ForecastTuning = DEFAULT_TUNING) {
  const forecaster = new KitchenForecaster(
    {
      mealTypes: mess.mealTypes,
      members: mess.members,
      marks: mess.marks,
      leaveSlots: leaveSlotsOf(mess),
      menus: mess.menus,
    },
    tuning,
  );
  const actual = actualsOf(mess);
  const rows: { forecast: number; actual: number; baseline: number; inside: boolean }[] = [];
  for (const date of mess.days.filter((d) => d >= mess.testStart)) {
    for (const f of forecaster.forecastDate(date, addDays(date, 1))) {
      const a = actual.get(`${date}|${f.mealType}`) ?? 0;
      rows.push({
        forecast: f.expected,
        actual: a,
        baseline: actual.get(`${addDays(date, -7)}|${f.mealType}`) ?? 0,
        inside: f.low <= a && a <= f.high,
      });
    }
  }
  const model = accuracy(rows);
  const baseline = accuracy(rows.map((r) => ({ forecast: r.baseline, actual: r.actual })));
  return {
    wape: model.wape!,
    bias: model.bias!,
    baselineWape: baseline.wape!,
    coverage: rows.filter((r) => r.inside).length / rows.length,
    meals: rows.length,
  };
}

const messOf = (members: number, seed: number) =>
  simulateMess({
    seed,
    members,
    start: '2025-06-02',
    historyWeeks: 16,
    testWeeks: 4,
    festival: { firstDay: 16 * 7 + 10, days: 5, leaveShare: 0.65 },
    examWeeks: [9, 10, 17],
  });

/**
 * Must-show 1 of issue 35: simulated messes of 120 and 500 members, 16 weeks of history and a 4-week test period
 * holding a festival break (and an exam week), seeds fixed (not those the knobs were tuned on: 100–105).
 */
describe.each([
  [120, 11],
  [500, 23],
])('the forecast on a simulated mess of %i members (seed %i)', (members, seed) => {
  const result = backTest(messOf(members, seed));
  beforeAll(() => {
    console.log(`${members} members, seed ${seed}: ${JSON.stringify(result)}`);
  });

  it('is within 10 % WAPE', () => {
    expect(result.wape).toBeLessThanOrEqual(0.1);
  });

  it("beats the same-meal-last-week baseline's WAPE by at least a fifth", () => {
    expect(result.wape).toBeLessThanOrEqual(0.8 * result.baselineWape);
  });

  it('holds 70–90 % of the actuals in its 80 % interval', () => {
    expect(result.coverage).toBeGreaterThanOrEqual(0.7);
    expect(result.coverage).toBeLessThanOrEqual(0.9);
  });
});

describe('what a forecast may use', () => {
  const mess = simulateMess({ seed: 3, members: 60, start: '2025-06-02', historyWeeks: 6, testWeeks: 1 });
  /** The days after the history, where the forecasts are checked. */
  const testDays = () => mess.days.filter((d) => d >= mess.testStart);
  const records = {
    mealTypes: mess.mealTypes,
    members: mess.members,
    marks: mess.marks,
    leaveSlots: leaveSlotsOf(mess),
    menus: mess.menus,
  };

  it("never changes a past day's forecast (made as of the evening before) when marks of that day are added", () => {
    const random = seededRandom(9);
    expect(testDays().length).toBeGreaterThan(0);
    for (const date of testDays()) {
      const today = addDays(date, 3);
      const before = new KitchenForecaster(records).forecastDate(date, today);
      // Marks of the day itself: some changed, some new, some made absent; and marks of later days.
      const extra: KitchenMark[] = mess.members.flatMap((member) =>
        mess.mealTypes.flatMap((mealType) =>
          [0, 1, 2].map((later) => ({
            userId: member.id,
            date: addDays(date, later),
            mealType,
            status: random() < 0.5 ? ('present' as const) : ('absent' as const),
          })),
        ),
      );
      const after = new KitchenForecaster({ ...records, marks: [...records.marks, ...extra] }).forecastDate(
        date,
        today,
      );
      expect(after).toEqual(before);
    }
  });

  it('forecasts the same from present marks given compactly (per member and meal, the days) as one by one', () => {
    const from = mess.days[0];
    const byMemberMeal = new Map<string, { userId: string; mealType: string; days: number[] }>();
    for (const mark of mess.marks) {
      if (mark.status !== 'present') continue;
      const key = `${mark.userId}|${mark.mealType}`;
      const row = byMemberMeal.get(key) ?? { userId: mark.userId, mealType: mark.mealType, days: [] };
      row.days.push(Math.round((Date.parse(mark.date) - Date.parse(from)) / 86_400_000));
      byMemberMeal.set(key, row);
    }
    const compact = {
      ...records,
      marks: records.marks.filter((m) => m.status === 'absent'),
      presence: { from, rows: [...byMemberMeal.values()] },
    };
    expect(testDays().length).toBeGreaterThan(0);
    for (const date of testDays()) {
      const today = addDays(date, 1);
      expect(new KitchenForecaster(compact).forecastDate(date, today)).toEqual(
        new KitchenForecaster(records).forecastDate(date, today),
      );
    }
  });

  it("forecasts today and later the same from the model kept for today and the dates' own records", () => {
    expect(testDays().length).toBeGreaterThan(0);
    for (const today of testDays()) {
      const full = new KitchenForecaster(records);
      // Stored as JSON; the members read back in another order.
      const model = JSON.parse(JSON.stringify(full.fittedAt(today))) as FittedModel;
      const own = {
        mealTypes: records.mealTypes,
        members: [...records.members].reverse(),
        marks: records.marks.filter((m) => m.date >= today),
        leaveSlots: records.leaveSlots.filter((l) => l.date >= today),
        menus: records.menus.filter((m) => m.date >= today),
      };
      expect(KitchenForecaster.fits(model, own)).toBe(true);
      const kept = new KitchenForecaster(own, DEFAULT_TUNING, model);
      for (let date = today; date <= addDays(today, 6); date = addDays(date, 1)) {
        expect(kept.forecastDate(date, today)).toEqual(full.forecastDate(date, today));
      }
    }
    const model = new KitchenForecaster(records).fittedAt(mess.testStart);
    expect(KitchenForecaster.fits(model, { ...records, members: records.members.slice(1) })).toBe(false);
  });

  it('forecasts from a kept model adapted to a member who joined today what a fit with them does', () => {
    expect(testDays().length).toBeGreaterThan(0);
    for (const today of testDays()) {
      const model = JSON.parse(JSON.stringify(new KitchenForecaster(records).fittedAt(today))) as FittedModel;
      const joiner = { id: '00000000-0000-4000-8000-0000000000ff', since: today };
      const withJoiner = { ...records, members: [joiner, ...records.members] };
      const own = {
        ...withJoiner,
        marks: records.marks.filter((m) => m.date >= today),
        leaveSlots: records.leaveSlots.filter((l) => l.date >= today),
        menus: records.menus.filter((m) => m.date >= today),
      };
      expect(KitchenForecaster.fits(model, own)).toBe(false);
      const adapted = adaptModel(model, own)!;
      expect(KitchenForecaster.fits(adapted, own)).toBe(true);
      const kept = new KitchenForecaster(own, DEFAULT_TUNING, adapted);
      const full = new KitchenForecaster(withJoiner);
      for (let date = today; date <= addDays(today, 6); date = addDays(date, 1)) {
        expect(kept.forecastDate(date, today)).toEqual(full.forecastDate(date, today));
      }
    }
  });

  it("forecasts from yesterday's kept model, or one a member has left, within a plate or two of a fresh fit", () => {
    const today = mess.testStart;
    const yesterdays = new KitchenForecaster(records).fittedAt(addDays(today, -1));
    const [, ...stayed] = records.members;
    const own = (members: typeof records.members) => ({
      ...records,
      members,
      marks: records.marks.filter((m) => m.date >= today),
      leaveSlots: records.leaveSlots.filter((l) => l.date >= today),
      menus: records.menus.filter((m) => m.date >= today),
    });
    let compared = 0;
    for (const [model, members] of [
      [yesterdays, records.members],
      [new KitchenForecaster(records).fittedAt(today), stayed],
    ] as const) {
      const kept = new KitchenForecaster(own(members), DEFAULT_TUNING, adaptModel(model, own(members)));
      const full = new KitchenForecaster({ ...records, members });
      for (let date = today; date <= addDays(today, 6); date = addDays(date, 1)) {
        const a = kept.forecastDate(date, today).map((f) => f.expected);
        const b = full.forecastDate(date, today).map((f) => f.expected);
        expect(a.length).toBeGreaterThan(0);
        expect(a).toHaveLength(b.length);
        a.forEach((x, i) => expect(Math.abs(x - b[i])).toBeLessThanOrEqual(2));
        compared += 1;
      }
    }
    // Both models, each over the week.
    expect(compared).toBe(14);
  });

  it("counts today's declarations and never forecasts more than the members not on leave", () => {
    const date = mess.testStart;
    const away = new Set(records.leaveSlots.filter((l) => l.date === date).map((l) => l.userId));
    const here = mess.members.filter((m) => m.since <= date && !away.has(m.id));
    const declared = here.slice(0, 40).map((m) => ({
      userId: m.id,
      date,
      mealType: 'Lunch',
      status: 'present' as const,
    }));
    const history = records.marks.filter((m) => m.date < date);
    const [, lunch] = new KitchenForecaster({ ...records, marks: [...history, ...declared] }).forecastDate(
      date,
      date,
    );
    expect(lunch.declared).toEqual({ present: 40, absent: 0 });
    expect(lunch.low).toBeGreaterThanOrEqual(40);
    expect(lunch.low).toBeLessThanOrEqual(lunch.expected);
    expect(lunch.expected).toBeLessThanOrEqual(lunch.high);
    expect(lunch.high).toBeLessThanOrEqual(lunch.members - lunch.onLeave);
  });

  it('forecasts 0 for a meal whose members are all on leave', () => {
    const date = mess.testStart;
    const leaveSlots = mess.members.map((m) => ({ userId: m.id, date, mealType: 'Dinner' }));
    const dinner = new KitchenForecaster({ ...records, leaveSlots }).forecastDate(date, date)[2];
    expect(dinner).toMatchObject({ expected: 0, low: 0, high: 0, onLeave: mess.members.length });
  });

  it('says so in `basis` when the mess has no history, and assumes a share of the members', () => {
    const [breakfast] = new KitchenForecaster({ ...records, marks: [] }).forecastDate(
      '2025-06-02',
      '2025-06-02',
    );
    expect(breakfast.basis).toMatch(/^No attendance before this date yet/);
    expect(breakfast.expected).toBe(Math.round(0.7 * (60 - breakfast.onLeave)));
  });
});

/**
 * How the knobs were chosen: `KITCHEN_TUNING='[["name", {knob: value}], …]' npm test -- forecast-model` prints the
 * mean WAPE, coverage and baseline WAPE of each variant over six other simulated messes (seeds 100–105).
 */
(process.env.KITCHEN_TUNING ? describe : describe.skip)('tuning', () => {
  it('prints each variant', () => {
    const variants = JSON.parse(process.env.KITCHEN_TUNING ?? '[]') as [string, Partial<ForecastTuning>][];
    const messes = [120, 500, 120, 500, 200, 300].map((members, i) => messOf(members, 100 + i));
    for (const [name, change] of variants) {
      const results = messes.map((mess) => backTest(mess, { ...DEFAULT_TUNING, ...change }));
      const mean = (k: 'wape' | 'coverage' | 'baselineWape') =>
        (results.reduce((s, r) => s + r[k], 0) / results.length).toFixed(4);
      const each = results.map((r) => `${r.wape}/${r.coverage.toFixed(2)}`).join(' ');
      console.log(
        `${name} wape ${mean('wape')} coverage ${mean('coverage')} baseline ${mean('baselineWape')}: ${each}`,
      );
    }
  });
});
