import fc from 'fast-check';
import { addDays, monthBounds } from '../../common/time/dates';
import { onRollsOn, type RollsSpan } from '../users';
import {
  bandOf,
  computeDailyBill,
  type DailyBill,
  type DailyLeave,
  type DailyMember,
  type DailyRules,
  rebatePaise,
  termStartOf,
} from './daily-charges';
import { monthCharges } from './month-charges';

const MONTHS = Array.from({ length: 12 }, (_, i) => `2026-${String(i + 1).padStart(2, '0')}`);
const dayOfYear = (n: number) => addDays('2026-01-01', n);

interface World {
  rules: DailyRules;
  members: { userId: string; spans: RollsSpan[] }[];
  leaves: DailyLeave[];
  extras: Map<string, number>;
}

/** Random rolls (a few stretches per member), non-overlapping leaves per member, bands, a cap and the terms. */
const world: fc.Arbitrary<World> = fc
  .record({
    ratePaise: fc.integer({ min: 1, max: 1_000_000 }),
    bands: fc.uniqueArray(
      fc.record({ minDays: fc.integer({ min: 1, max: 60 }), percent: fc.integer({ min: 0, max: 100 }) }),
      { minLength: 1, maxLength: 10, selector: (b) => b.minDays },
    ),
    daysPerTerm: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 40 })),
    termStartMonths: fc.uniqueArray(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 12 }),
    members: fc.array(
      fc.record({
        spans: fc.array(fc.tuple(fc.integer({ min: 0, max: 364 }), fc.integer({ min: 0, max: 200 })), {
          maxLength: 3,
        }),
        leaves: fc.array(
          fc.record({
            gap: fc.integer({ min: 0, max: 40 }),
            length: fc.integer({ min: 1, max: 25 }),
            firstFull: fc.boolean(),
            lastFull: fc.boolean(),
          }),
          { maxLength: 8 },
        ),
        extras: fc.integer({ min: 0, max: 50_000 }),
      }),
      { minLength: 1, maxLength: 6 },
    ),
  })
  .map((w) => {
    const leaves: DailyLeave[] = [];
    const members = w.members.map((m, i) => {
      const userId = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      // Stretches in order, never overlapping: each starts where the last ended or later.
      let at = 0;
      const spans: RollsSpan[] = [];
      for (const [gap, length] of m.spans) {
        const from = at + (gap % 60);
        if (from > 364) break;
        const open = length === 0;
        spans.push({ userId, from: dayOfYear(from), until: open ? null : dayOfYear(from + length) });
        if (open) break;
        at = from + length;
      }
      let day = 0;
      m.leaves.forEach((l, j) => {
        day += l.gap;
        const start = day;
        const end = day + l.length - 1;
        day = end + 1;
        if (end > 364) return;
        const fullDays: string[] = [];
        for (let d = start; d <= end; d += 1) {
          if ((d === start && !l.firstFull) || (d === end && !l.lastFull)) continue;
          fullDays.push(dayOfYear(d));
        }
        leaves.push({
          leaveId: `${userId}-${j}`,
          userId,
          startDate: dayOfYear(start),
          endDate: dayOfYear(end),
          startMealType: 'Breakfast',
          endMealType: 'Dinner',
          createdAt: new Date(2026, 0, 1, 0, 0, j),
          fullDays,
        });
      });
      return { userId, spans, extras: m.extras };
    });
    return {
      rules: {
        ratePaise: w.ratePaise,
        bands: w.bands,
        daysPerTerm: w.daysPerTerm,
        termStartMonths: w.termStartMonths,
      },
      members: members.map(({ userId, spans }) => ({ userId, spans })),
      leaves,
      extras: new Map(members.filter((m) => m.extras > 0).map((m) => [m.userId, m.extras])),
    };
  });

const billOf = (w: World, month: string): DailyBill => {
  const members: DailyMember[] = w.members.map((m) => ({
    userId: m.userId,
    fullName: m.userId,
    meals: 0,
    onRolls: (date: string) => onRollsOn(m.spans, date),
  }));
  return computeDailyBill(month, 1_000_000, members, w.leaves, w.rules);
};

describe('The daily rate, for random rolls, leaves and bands', () => {
  it('charges Σ (days × rate) − Σ rebates + Σ extras, to the paisa; no rebate exceeds days × rate', () => {
    fc.assert(
      fc.property(world, fc.constantFrom(...MONTHS), (w, month) => {
        const bill = billOf(w, month);
        const gross = bill.shares.reduce((s, l) => s + l.days * w.rules.ratePaise, 0);
        const rebates = bill.shares.reduce((s, l) => s + l.rebates.reduce((r, x) => r + x.amountPaise, 0), 0);
        const extras = [...w.extras.values()].reduce((s, e) => s + e, 0);
        const charged = monthCharges(bill, w.extras).reduce((s, c) => s + c.amountPaise, 0);
        expect(charged).toBe(gross - rebates + extras);
        expect(bill.allocatedPaise).toBe(gross - rebates);
        for (const line of bill.shares) {
          expect(line.rebatePaise).toBeLessThanOrEqual(line.days * w.rules.ratePaise);
          expect(line.sharePaise).toBe(line.grossPaise - line.rebatePaise);
          expect(line.rebatedDays).toBeLessThanOrEqual(line.leaveDays);
          expect(line.leaveDays).toBeLessThanOrEqual(line.days);
          for (const r of line.rebates) {
            expect(r.amountPaise).toBe(rebatePaise(r.rebatedDays, w.rules.ratePaise, r.percent));
            expect(r.percent).toBe(bandOf(w.rules.bands, r.leaveDays)?.percent ?? 0);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('never rebates more days in a term than its cap', () => {
    // Over all runs, some terms had rebated days to check (a property over empty worlds would prove nothing).
    let terms = 0;
    fc.assert(
      fc.property(world, (w) => {
        if (w.rules.daysPerTerm === 0) return;
        const perTerm = new Map<string, number>();
        for (const month of MONTHS) {
          const term = termStartOf(monthBounds(month).first, w.rules.termStartMonths);
          for (const line of billOf(w, month).shares) {
            const key = `${line.userId} ${term}`;
            perTerm.set(key, (perTerm.get(key) ?? 0) + line.rebatedDays);
          }
        }
        for (const days of perTerm.values()) {
          expect(days).toBeLessThanOrEqual(w.rules.daysPerTerm);
          if (days > 0) terms += 1;
        }
      }),
      { numRuns: 300 },
    );
    expect(terms).toBeGreaterThan(0);
  });

  it('rebates each full day of a leave on the rolls once, whichever months it crosses (no cap: every one)', () => {
    let leaves = 0;
    fc.assert(
      fc.property(world, (w) => {
        const rebated = new Map<string, number>();
        const counted = new Map<string, number>();
        for (const month of MONTHS) {
          for (const line of billOf(w, month).shares) {
            for (const r of line.rebates) {
              rebated.set(r.leaveId, (rebated.get(r.leaveId) ?? 0) + r.rebatedDays);
              counted.set(r.leaveId, (counted.get(r.leaveId) ?? 0) + r.daysInMonth);
            }
          }
        }
        for (const leave of w.leaves) {
          const spans = w.members.find((m) => m.userId === leave.userId)!.spans;
          const onRolls = leave.fullDays.filter((d) => onRollsOn(spans, d)).length;
          expect(counted.get(leave.leaveId) ?? 0).toBe(onRolls);
          expect(rebated.get(leave.leaveId) ?? 0).toBeLessThanOrEqual(onRolls);
          const percent = bandOf(w.rules.bands, leave.fullDays.length)?.percent ?? 0;
          if (w.rules.daysPerTerm === 0 && percent > 0) expect(rebated.get(leave.leaveId) ?? 0).toBe(onRolls);
          leaves += 1;
        }
      }),
      { numRuns: 300 },
    );
    expect(leaves).toBeGreaterThan(0);
  });
});

describe('The daily rate, by hand', () => {
  const rules: DailyRules = {
    ratePaise: 12345,
    bands: [
      { minDays: 3, percent: 75 },
      { minDays: 5, percent: 90 },
      { minDays: 8, percent: 100 },
    ],
    daysPerTerm: 10,
    termStartMonths: [1, 7],
  };
  const all = (from: string, to: string) => {
    const days: string[] = [];
    for (let d = from; d <= to; d = addDays(d, 1)) days.push(d);
    return days;
  };
  const leave = (id: string, from: string, to: string, fullDays = all(from, to)): DailyLeave => ({
    leaveId: id,
    userId: 'u',
    startDate: from,
    endDate: to,
    startMealType: 'Breakfast',
    endMealType: 'Dinner',
    createdAt: new Date(0),
    fullDays,
  });
  const member: DailyMember = { userId: 'u', fullName: 'U', meals: 0, onRolls: () => true };

  it('chooses the band with the largest minDays at most the days; none below every band', () => {
    expect(bandOf(rules.bands, 2)).toBeUndefined();
    expect(bandOf(rules.bands, 4)).toEqual({ minDays: 3, percent: 75 });
    expect(bandOf(rules.bands, 7)).toEqual({ minDays: 5, percent: 90 });
    expect(bandOf(rules.bands, 30)).toEqual({ minDays: 8, percent: 100 });
  });

  it('finds the term of a date from its start months', () => {
    expect(termStartOf('2026-03-15', [1, 7])).toBe('2026-01-01');
    expect(termStartOf('2026-07-01', [1, 7])).toBe('2026-07-01');
    expect(termStartOf('2026-03-15', [8])).toBe('2025-08-01');
  });

  it('caps a term across months, and starts again with the next term', () => {
    // 9 days in June, then 4 in June: 1 under the cap; a leave in July is in a new term.
    const leaves = [
      leave('a', '2026-06-01', '2026-06-09'),
      leave('b', '2026-06-20', '2026-06-23'),
      leave('c', '2026-07-02', '2026-07-05'),
    ];
    const june = computeDailyBill('2026-06', 0, [member], leaves, rules).shares[0];
    expect(june.rebates.map((r) => [r.leaveId, r.rebatedDays, r.amountPaise])).toEqual([
      ['a', 9, 111105],
      ['b', 1, 9259],
    ]);
    const july = computeDailyBill('2026-07', 0, [member], leaves, rules).shares[0];
    expect(july.rebates.map((r) => [r.leaveId, r.rebatedDays, r.amountPaise])).toEqual([['c', 4, 37035]]);
  });

  it('keeps the leaves that rebate nothing, and counts the days before joining and off the rolls apart', () => {
    // On the rolls 10–19 and from 25 March: a 2-day leave below every band; a leave of 7–14 March (8 days, 100 %)
    // 3 days of which came before joining; one of 18–26 March with 5 days off the rolls.
    const rolls = (date: string) => (date >= '2026-03-10' && date < '2026-03-20') || date >= '2026-03-25';
    const joiner: DailyMember = { ...member, onRolls: rolls };
    const leaves = [
      leave('a', '2026-03-07', '2026-03-14'),
      leave('b', '2026-03-16', '2026-03-17'),
      leave('c', '2026-03-18', '2026-03-26'),
    ];
    const [share] = computeDailyBill('2026-03', 0, [joiner], leaves, { ...rules, daysPerTerm: 0 }).shares;
    expect(
      share.rebates.map((r) => [
        r.leaveId,
        r.daysInMonth,
        r.rebatedDays,
        r.belowBands,
        r.beforeJoiningDays,
        r.offRollsDays,
      ]),
    ).toEqual([
      ['a', 5, 5, false, 3, 0],
      ['b', 2, 0, true, 0, 0],
      ['c', 4, 4, false, 0, 5],
    ]);
  });

  it('bands a leave crossing months by all its days, and rebates each month its own days, rounded half up', () => {
    const leaves = [leave('x', '2026-03-29', '2026-04-03')];
    const march = computeDailyBill('2026-03', 0, [member], leaves, { ...rules, daysPerTerm: 0 }).shares[0];
    const april = computeDailyBill('2026-04', 0, [member], leaves, { ...rules, daysPerTerm: 0 }).shares[0];
    // 6 days: 90 %; 3 × 12345 × 0.9 = 33331.5 → 33332 in each month
    expect([march.rebatedDays, march.rebatePaise, april.rebatedDays, april.rebatePaise]).toEqual([
      3, 33332, 3, 33332,
    ]);
  });
});
