import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { Database } from '../../src/database/database';
import { messSetup, TestApp } from '../support/app';

type Member = Awaited<ReturnType<TestApp['member']>>;

const MEMBERS = 5;
const MEALS = ['Breakfast', 'Lunch', 'Dinner'];

/**
 * Property, with the real database and the whole app: for random months (expenses in paise, meals per member, the
 * mess's chargeMethod), the charges a close posts add up exactly to the frozen bill under chargeMethod, and each
 * member's charge is their frozen share.
 */
describe('Month charges (property)', () => {
  let t: TestApp;
  let admin: string;
  let manager: Member;
  let treasurer: Member;
  const members: Member[] = [];
  let monthIndex = 0;

  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.adminToken();
    await t.post('/auth/admin/setup', messSetup(), { token: admin });
    manager = await t.member('manager');
    treasurer = await t.member('treasurer');
    for (let i = 0; i < MEMBERS; i += 1) members.push(await t.member('student'));
  }, 120_000);
  afterAll(() => t?.close());

  it('charges of a closed month sum exactly to its frozen bill under chargeMethod', async () => {
    const month = fc.record({
      method: fc.constantFrom('spec', 'proportional'),
      // 1–3 expenses of 1 paisa to ₹50,000.00
      expenses: fc.array(fc.integer({ min: 1, max: 5_000_000 }), { minLength: 1, maxLength: 3 }),
      // each member's meals: 0–6 slots (day d, meal m)
      meals: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: MEMBERS, maxLength: MEMBERS }),
    });
    await fc.assert(
      fc.asyncProperty(month, async ({ method, expenses, meals }) => {
        monthIndex += 1;
        const ym = `20${String(10 + Math.floor(monthIndex / 12)).padStart(2, '0')}-${String((monthIndex % 12) + 1).padStart(2, '0')}`;
        const put = await t.put('/auth/admin/config', messSetup({ chargeMethod: method }), { token: admin });
        expect(put.status).toBe(200);
        for (const [i, paise] of expenses.entries()) {
          const res = await t.post(
            '/expenses',
            { category: 'Groceries', amount: paise / 100, date: `${ym}-0${i + 1}`, description: '' },
            { token: manager.token },
          );
          expect(res.status).toBe(201);
        }
        for (let slot = 0; slot < 6; slot += 1) {
          const diners = members.filter((_, i) => meals[i] > slot);
          if (!diners.length) continue;
          const res = await t.post(
            '/attendance/bulk',
            {
              date: `${ym}-1${Math.floor(slot / 3)}`,
              mealType: MEALS[slot % 3],
              marks: diners.map((m) => ({ userId: m.id, status: 'present' })),
            },
            { token: manager.token },
          );
          expect(res.status).toBe(201);
        }
        const closed = await t.post(`/analytics/months/${ym}/close`, undefined, { token: treasurer.token });
        expect(closed.status).toBe(200);
        expect(closed.body.method).toBe(method);
        const result = await inMess(FIRST_MESS_ID, () =>
          t.app
            .get(Database)
            .db.execute(
              sql`select user_id, amount_paise::bigint as amount from account_entries where kind = 'charge' and month = ${ym}`,
            ),
        );
        const rows = (result as unknown as { rows: { user_id: string; amount: string | number }[] }).rows;
        const charged = new Map(rows.map((r) => [r.user_id, Number(r.amount)]));
        const total = rows.reduce((sum, r) => sum + Number(r.amount), 0);
        expect(total).toBe(Math.round(closed.body.allocated * 100));
        const shares = closed.body.shares as { userId: { _id: string }; share: number }[];
        // every charge is a share's: the shares add up to the charges (an empty list only when nothing was charged)
        expect(shares.reduce((sum, s) => sum + Math.round(s.share * 100), 0)).toBe(total);
        for (const share of shares) {
          expect(charged.get(share.userId._id) ?? 0).toBe(Math.round(share.share * 100));
        }
        expect(rows.length).toBe(
          (closed.body.shares as { share: number }[]).filter((s) => s.share > 0).length,
        );
      }),
      { numRuns: 12 },
    );
  }, 600_000);
});
