import { randomUUID } from 'node:crypto';
import {
  Fuzzer,
  type ForeignMess,
  type FuzzOptions,
  type FuzzReport,
  type FuzzResponse,
  type Role,
  type Transport,
} from './fuzzer';
import { caller, hostileTokens, Sessions } from './setup';

/**
 * The cross-mess identity of the fuzz suite (issue 20: "no request acting in one mess ever reads or changes a record
 * of another"). Mess A is the admin's own, with its members (an ordinary Sessions) and one record of every kind
 * (seedRecords); mess B has a student, a manager and a treasurer of its own (Sessions with SECOND_MESS). The B
 * members send every operation of /api/docs.json carrying A's ids, then random requests carrying them (the rules
 * each answer must keep are ForeignMess's); A, read through the API by its admin before and after, must not have
 * changed.
 */

/** The month and day the records are made in: the document's examples (2025-03, 2025-03-14) name the same. */
export const SEED_MONTH = '2025-03';
export const SEED_DATE = '2025-03-14';
export const MEMBER_ROLES: readonly Role[] = ['student', 'manager', 'treasurer'];

type Call = ReturnType<typeof caller>;

const json = (res: FuzzResponse): Record<string, any> => {
  try {
    return JSON.parse(res.body) as Record<string, any>;
  } catch {
    return {};
  }
};

/** The `_id` under `key` of an answer that must be a success. */
function createdId(what: string, res: FuzzResponse, key: string): string {
  const id = json(res)[key]?._id as string | undefined;
  if (res.status >= 300 || !id)
    throw new Error(`cross-mess setup: ${what} answered ${res.status} ${res.body.slice(0, 300)}`);
  return id;
}

/**
 * One record of every kind in the mess of `a` (made by its members through the API): an expense, a menu, a mark,
 * feedback, a leave, an extra, and account entries (an adjustment and a payment). Answers their ids by kind, with
 * the members' as `member`.
 */
export async function seedRecords(call: Call, a: Sessions): Promise<Record<string, string[]>> {
  const { manager, student, treasurer } = a.tokens;
  const studentId = a.ids.student!;
  const inAMonth = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
  const expense = await call(
    'POST',
    '/api/expenses',
    { category: 'Vegetables', amount: 1250.5, date: SEED_DATE, description: 'cross-mess seed' },
    manager,
  );
  let menu = await call(
    'POST',
    '/api/meals',
    { date: SEED_DATE, mealType: 'Lunch', dishes: ['Rice', 'Dal'] },
    manager,
  );
  // A running service fuzzed before already has this menu: the seed is then that one.
  if (menu.status === 409) {
    const listed = json(await call('GET', `/api/meals?date=${SEED_DATE}&mealType=Lunch`, undefined, manager));
    menu = { ...menu, status: 200, body: JSON.stringify({ meal: listed.meals?.[0] }) };
  }
  const mark = await call(
    'POST',
    '/api/attendance',
    { userId: studentId, date: SEED_DATE, mealType: 'Lunch', status: 'present' },
    manager,
  );
  const feedback = await call(
    'POST',
    '/api/feedback',
    { date: SEED_DATE, mealType: 'Lunch', rating: 4, comment: 'cross-mess seed' },
    student,
  );
  const leave = await call(
    'POST',
    '/api/leaves',
    { userId: studentId, startDate: inAMonth, endDate: inAMonth, reason: 'cross-mess seed' },
    manager,
  );
  const extra = await call(
    'POST',
    '/api/extras',
    { userId: studentId, date: SEED_DATE, item: 'Egg', quantity: 2, mealType: 'Lunch' },
    manager,
  );
  const adjustment = await call(
    'POST',
    `/api/accounts/${studentId}/adjustments`,
    { direction: 'debit', amount: 150, note: 'cross-mess seed' },
    treasurer,
  );
  const payment = await call(
    'POST',
    `/api/accounts/${studentId}/payments`,
    { amount: 100, date: SEED_DATE, method: 'upi', reference: 'UPI-CROSS-MESS' },
    treasurer,
  );
  return {
    expense: [createdId('the expense', expense, 'expense')],
    menu: [createdId('the menu', menu, 'meal')],
    mark: [createdId('the mark', mark, 'attendance')],
    feedback: [createdId('the feedback', feedback, 'feedback')],
    leave: [createdId('the leave', leave, 'leave')],
    extra: [createdId('the extra', extra, 'extra')],
    entry: [createdId('the adjustment', adjustment, 'entry'), createdId('the payment', payment, 'entry')],
    member: MEMBER_ROLES.map((role) => a.ids[role]!),
  };
}

/**
 * What the mess's admin reads of it: every list of records, each seeded record by its id, its members, accounts,
 * audit trail, configuration and the seed month's bill. Keyed by the request; values are the answers' bodies.
 */
export async function snapshot(
  call: Call,
  adminToken: string,
  messId: string,
  records: Record<string, string[]>,
): Promise<Map<string, string>> {
  const urls = [
    '/api/expenses?limit=100',
    ...records.expense.map((id) => `/api/expenses/${id}`),
    `/api/meals?date=${SEED_DATE}`,
    ...records.menu.map((id) => `/api/meals/${id}`),
    `/api/attendance?limit=100&month=${SEED_MONTH}`,
    '/api/feedback?limit=100',
    '/api/leaves?limit=100',
    '/api/extras?limit=100',
    '/api/accounts?limit=100',
    ...records.member.map((id) => `/api/accounts/${id}?limit=100`),
    ...records.member.map((id) => `/api/users/${id}`),
    // Approved only: registration is public and may add a pending member to any mess, A included.
    '/api/users?limit=100&status=approved',
    '/api/audit?limit=100',
    '/api/auth/admin/config',
    `/api/analytics/months/${SEED_MONTH}`,
    `/api/analytics/shares?month=${SEED_MONTH}`,
    `/api/analytics/expenses?month=${SEED_MONTH}`,
  ];
  const out = new Map<string, string>();
  for (const url of urls) {
    // The admin acts in any mess: naming A keeps the reads in A whichever mess the admin belongs to.
    const res = await call(
      'GET',
      `${url}${url.includes('?') ? '&' : '?'}mess=${messId}`,
      undefined,
      adminToken,
    );
    // A bill's `computedAt` is when it was computed from the kept figures (decision 0011): a later read may compute
    // it again, with the same figures; it is not a record of the mess.
    out.set(url, `${res.status} ${res.body.replace(/"computedAt":"[^"]*"/g, '"computedAt":"…"')}`);
  }
  return out;
}

/** The requests whose answers differ between two snapshots, with both answers. */
export function differences(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...before.keys()]
    .filter((url) => before.get(url) !== after.get(url))
    .map(
      (url) =>
        `${url}\n   before ${before.get(url)?.slice(0, 400)}\n   after  ${after.get(url)?.slice(0, 400)}`,
    );
}

export interface CrossMessResult {
  report: FuzzReport;
  foreign: ForeignMess;
  /** Requests of A's snapshot whose answers changed during the run (none: A is untouched). */
  changed: string[];
  /** Answers of the snapshot that were not 200 (the snapshot must read what it compares). */
  unreadable: string[];
  fuzzer: Fuzzer;
}

export interface CrossMessOptions extends Pick<
  FuzzOptions,
  'seed' | 'concurrency' | 'secrets' | 'onFinding' | 'timeBudgetMs'
> {
  /** Random requests after the sweep (each carrying A's ids, as a B member). */
  requests: number;
  jwtSecret?: string;
}

/**
 * The whole cross-mess phase on prepared sessions: seeds A, reads it, runs the sweep and `requests` random requests
 * as B's members with A's ids, reads A again.
 */
export async function crossMessPhase(
  doc: unknown,
  transport: Transport,
  a: Sessions,
  b: Sessions,
  options: CrossMessOptions,
): Promise<CrossMessResult> {
  const call = caller(transport);
  const records = await seedRecords(call, a);
  // B has a record of its own, so B's lists are not trivially empty.
  createdId(
    "B's expense",
    await call(
      'POST',
      '/api/expenses',
      { category: 'Gas', amount: 99, date: SEED_DATE, description: `B ${randomUUID()}` },
      b.tokens.manager,
    ),
    'expense',
  );
  const before = await snapshot(call, a.tokens.admin!, a.messId!, records);
  const unreadable = [...before.entries()]
    .filter(([, v]) => !v.startsWith('200 '))
    .map(([k, v]) => `${k}: ${v}`);
  // Every id A's admin can read of A, except the ones that are not A's to hide: the deployment's admin, the messes'
  // own ids (GET /messes is public) and B's members (an admin's audit of their approval may sit in A).
  const shared = new Set(
    [a.ids.admin, a.messId, b.messId, ...MEMBER_ROLES.map((r) => b.ids[r])].map((id) => id?.toLowerCase()),
  );
  const forbidden = new Set<string>(Object.values(records).flat());
  for (const body of before.values())
    for (const id of body.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi) ?? [])
      if (!shared.has(id.toLowerCase())) forbidden.add(id.toLowerCase());
  const foreign: ForeignMess = {
    messId: a.messId!,
    slug: json(await call('GET', `/api/messes/${a.messId}`)).mess?.slug ?? 'main',
    records,
    forbidden: [...forbidden],
  };
  const fuzzer = new Fuzzer(doc, transport, {
    ...options,
    roles: MEMBER_ROLES,
    foreign,
    refreshToken: async (role) => {
      const token = await b.refresh(role);
      return token;
    },
  });
  fuzzer.setTokens(
    Object.fromEntries(MEMBER_ROLES.map((role) => [role, b.tokens[role]])),
    hostileTokens(b.tokens.student, options.jwtSecret),
  );
  const report = await fuzzer.run();
  const after = await snapshot(call, a.tokens.admin!, a.messId!, records);
  return { report, foreign, changed: differences(before, after), unreadable, fuzzer };
}
