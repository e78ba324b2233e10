import { sql } from 'drizzle-orm';
import { spawnSync } from 'node:child_process';
import { FIRST_MESS_ID, inMess } from '../../src/common/tenancy/mess-scope';
import { Database } from '../../src/database/database';
import { messSetup, type Response, TestApp } from './app';

// What the member-account e2e files share (test/e2e/accounts-*.e2e-spec.ts).

export type Member = Awaited<ReturnType<TestApp['member']>>;
export interface Entry {
  _id: string;
  kind: string;
  direction: 'debit' | 'credit';
  amount: number;
  month: string | null;
  date: string;
  reverses: string | null;
  reference?: string | null;
  recordedBy?: string | null;
  /** Who recorded it, as lists name people (null for what the service recorded itself). */
  recordedByUser?: { _id: string; fullName: string } | null;
  balance?: number;
}

export const paise = (rupees: number) => Math.round(rupees * 100);
/** Σ debits − Σ credits of entries, in paise: what every balance must equal. */
export const sumOf = (entries: Entry[]) =>
  entries.reduce((sum, e) => sum + (e.direction === 'debit' ? 1 : -1) * paise(e.amount), 0);

/** RFC 4180 rows: quoted cells may hold commas and doubled quotes. */
export function parseCsv(text: string): string[][] {
  return text
    .trim()
    .split('\r\n')
    .map((line) => {
      const cells: string[] = [];
      let cell = '';
      let quoted = false;
      for (let i = 0; i < line.length; i += 1) {
        const ch = line[i];
        if (quoted && ch === '"' && line[i + 1] === '"') {
          cell += '"';
          i += 1;
        } else if (ch === '"') quoted = !quoted;
        else if (ch === ',' && !quoted) {
          cells.push(cell);
          cell = '';
        } else cell += ch;
      }
      return [...cells, cell];
    });
}

/** pdftotext (poppler-utils) reads the PDF back; the PDF assertions are skipped, saying so, when it is missing. */
/**
 * The statement CSV's header as a spreadsheet reads it: the first eight columns of 2.1, then (issue 24) the items'
 * columns and the member, added after them so a reader of the first eight reads what it always did.
 */
export const STATEMENT_CSV_HEADER = [
  'date',
  'entry_id',
  'kind',
  'particulars',
  'month',
  'debit_inr',
  'credit_inr',
  'balance_inr',
  'quantity',
  'unit_price_inr',
  'item_amount_inr',
  'member',
  'college_id',
];

export const hasPdfToText = spawnSync('pdftotext', ['-v']).status === 0;

export interface AccountsSuite {
  /** Set by the suite's beforeAll. */
  t: TestApp;
  admin: string;
  manager: Member;
  treasurer: Member;
  a: Member;
  b: Member;
  c: Member;
  spend(amount: number, date: string): Promise<Response>;
  present(members: Member[], date: string, mealType: string): Promise<Response>;
  account(
    m: Member,
    limit?: number,
  ): Promise<{ balance: number; entries: Entry[]; pagination: { total: number } }>;
  pay(m: Member, body: Record<string, unknown>, key?: string): Promise<Response>;
  entryCount(): Promise<number>;
}

/**
 * Registers the hooks of a file that starts from the March 2025 fixture: expenses ₹6,000 + ₹3,001.01 = ₹9,001.01;
 * meals A 3, B 2, C 1. Proportional (the default chargeMethod) charges 9001.01 × m/6 to the paisa: exact shares
 * 4500.505, 3000.336…, 1500.168…; the two paise left go to the largest remainders (C, then B): A 4500.50,
 * B 3000.34, C 1500.17.
 */
export function accountsSuite(): AccountsSuite {
  const suite = {} as AccountsSuite;
  suite.spend = (amount, date) =>
    suite.t.post(
      '/expenses',
      { category: 'Groceries', amount, date, description: '' },
      { token: suite.manager.token },
    );
  suite.present = (members, date, mealType) =>
    suite.t.post(
      '/attendance/bulk',
      { date, mealType, marks: members.map((m) => ({ userId: m.id, status: 'present' })) },
      { token: suite.manager.token },
    );
  suite.account = async (m, limit = 100) => {
    const res = await suite.t.get(`/accounts/${m.id}?limit=${limit}`, { token: suite.treasurer.token });
    expect(res.status).toBe(200);
    return res.body as { balance: number; entries: Entry[]; pagination: { total: number } };
  };
  suite.pay = (m, body, key) =>
    suite.t.post(`/accounts/${m.id}/payments`, body, {
      token: suite.treasurer.token,
      ...(key ? { headers: { 'idempotency-key': key } } : {}),
    });
  suite.entryCount = async () => {
    // The suite's members are in the first mess: the table read directly shows that mess's entries.
    const rows = await inMess(FIRST_MESS_ID, () =>
      suite.t.app.get(Database).db.execute(sql`select count(*)::int as n from account_entries`),
    );
    return Number((rows as unknown as { rows: { n: number }[] }).rows[0].n);
  };

  beforeAll(async () => {
    const t = (suite.t = await TestApp.start());
    suite.admin = await t.adminToken();
    await t.post('/auth/admin/setup', messSetup(), { token: suite.admin });
    suite.manager = await t.member('manager', { fullName: 'Meera Manager' });
    suite.treasurer = await t.member('treasurer', { fullName: 'Tara Treasurer' });
    const a = (suite.a = await t.member('student', { fullName: 'A Member' }));
    const b = (suite.b = await t.member('student', { fullName: 'B Member' }));
    const c = (suite.c = await t.member('student', { fullName: 'C Member' }));
    const { spend, present } = suite;
    expect((await spend(6000, '2025-03-05')).status).toBe(201);
    expect((await spend(3001.01, '2025-03-20')).status).toBe(201);
    expect((await present([a, b, c], '2025-03-01', 'Lunch')).status).toBe(201);
    expect((await present([a, b], '2025-03-02', 'Lunch')).status).toBe(201);
    expect((await present([a], '2025-03-03', 'Dinner')).status).toBe(201);
  }, 120_000);
  afterAll(() => suite.t?.close());
  return suite;
}
