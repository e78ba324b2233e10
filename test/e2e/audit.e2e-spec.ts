import { asOwner } from '../support/owner-sql';
import { addDays, localParts } from '../../src/common/time/dates';
import { Database } from '../../src/database/database';
import { messSetup, TestApp } from '../support/app';

type Member = Awaited<ReturnType<TestApp['member']>>;

// Far from UTC, so a filter that read days in UTC instead of the mess's zone would show.
const TZ = 'Pacific/Kiritimati';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('Audit trail: who changed money or membership, from what to what', () => {
  let t: TestApp;
  let admin: string;
  let adminId: string;
  let manager: Member;
  let treasurer: Member;
  let student: Member;

  beforeAll(async () => {
    t = await TestApp.start({ MESS_TIMEZONE: TZ });
    admin = await t.adminToken();
    adminId = (await t.get('/auth/verify', { token: admin })).body.user._id;
    manager = await t.member('manager', { fullName: 'Meera Nair' });
    treasurer = await t.member('treasurer', { fullName: 'Ravi Kumar' });
    student = await t.member('student');
  }, 120_000);
  afterAll(() => t.close());

  const trail = async (query: string, token = admin) => {
    const res = await t.get(`/audit${query}`, { token });
    expect([res.status, res.body.success]).toEqual([200, true]);
    return res.body as {
      events: any[];
      pagination: { page: number; limit: number; total: number };
    };
  };
  // As the tables' owner: it stages failures with triggers, and the append-only rule holds whoever sends a change.
  const execute = (statement: string) => asOwner(t.app.get(Database), statement);
  const countRows = async () => {
    const result = await execute('select count(*)::int as n from audit_events');
    const rows = (result as { rows?: { n: number }[] }).rows ?? (result as unknown as { n: number }[]);
    return rows[0].n;
  };

  describe('the mess configuration', () => {
    it('records the setup and each replacement with the admin, before and after (budget in paise)', async () => {
      const setup = await t.post('/auth/admin/setup', messSetup({ monthlyBudget: 150000.5 }), {
        token: admin,
        headers: { 'x-request-id': 'setup-1' },
      });
      expect(setup.status).toBe(200);
      const configId = setup.body.config._id;
      const replaced = await t.put(
        '/auth/admin/config',
        messSetup({ expenseCategories: ['Groceries', 'Gas', 'Vegetables'], monthlyBudget: 160000 }),
        { token: admin },
      );
      expect(replaced.status).toBe(200);

      const { events } = await trail('?entity=config');
      expect(events).toHaveLength(2);
      const [changed, created] = events;
      expect(created).toEqual({
        _id: expect.stringMatching(UUID),
        at: expect.any(String),
        actor: { _id: adminId, fullName: expect.any(String) },
        action: 'setup',
        entity: 'config',
        entityId: configId,
        before: null,
        after: expect.objectContaining({
          messName: 'Hostel 7 Mess',
          expenseCategories: ['Groceries', 'Gas'],
          monthlyBudgetPaise: 15_000_050,
        }),
        requestId: 'setup-1',
      });
      expect(changed).toMatchObject({
        action: 'changed',
        entityId: configId,
        before: { expenseCategories: ['Groceries', 'Gas'], monthlyBudgetPaise: 15_000_050 },
        after: { expenseCategories: ['Groceries', 'Gas', 'Vegetables'], monthlyBudgetPaise: 16_000_000 },
        requestId: replaced.headers['x-request-id'],
      });
    });

    it('records nothing for a refused change (invalid body, a second setup)', async () => {
      const before = await countRows();
      const invalid = await t.put(
        '/auth/admin/config',
        messSetup({ mealTimes: [{ name: 'Lunch', startTime: '14:00', endTime: '12:00' }] }),
        { token: admin },
      );
      expect(invalid.status).toBe(400);
      expect((await t.post('/auth/admin/setup', messSetup(), { token: admin })).status).toBe(409);
      expect(await countRows()).toBe(before);
    });
  });

  describe('expenses', () => {
    it('shows who changed an expense from what to what, newest first, with each request id', async () => {
      const created = await t.post(
        '/expenses',
        { category: 'Vegetables', amount: 1250.5, description: 'Onions', date: '2025-03-14' },
        { token: manager.token, headers: { 'x-request-id': 'create-onions' } },
      );
      expect(created.status).toBe(201);
      const id = created.body.expense._id;
      const changed = await t.put(
        `/expenses/${id}`,
        { category: 'Groceries', amount: 1320, description: 'Onions and rice', date: '2025-03-15' },
        { token: admin },
      );
      expect(changed.status).toBe(200);
      expect((await t.delete(`/expenses/${id}`, { token: manager.token })).status).toBe(200);

      const { events, pagination } = await trail(`?entity=expense&entityId=${id}`, treasurer.token);
      expect(pagination).toEqual({ page: 1, limit: 20, total: 3 });
      expect(events.map((e) => [e.action, e.actor])).toEqual([
        ['deleted', { _id: manager.id, fullName: 'Meera Nair' }],
        ['changed', { _id: adminId, fullName: expect.any(String) }],
        ['created', { _id: manager.id, fullName: 'Meera Nair' }],
      ]);
      const [deleted, change, creation] = events;
      const original = {
        category: 'Vegetables',
        amountPaise: 125_050,
        description: 'Onions',
        date: '2025-03-14',
        recordedBy: manager.id,
      };
      const replacement = {
        category: 'Groceries',
        amountPaise: 132_000,
        description: 'Onions and rice',
        date: '2025-03-15',
        recordedBy: manager.id,
      };
      expect(creation).toMatchObject({ before: null, after: original, requestId: 'create-onions' });
      expect(change).toMatchObject({
        before: original,
        after: replacement,
        requestId: changed.headers['x-request-id'],
      });
      expect(change.requestId).toMatch(UUID);
      expect(deleted).toMatchObject({ before: replacement, after: null });
      expect(Date.parse(deleted.at)).toBeGreaterThanOrEqual(Date.parse(change.at));
      expect(Date.parse(change.at)).toBeGreaterThanOrEqual(Date.parse(creation.at));
    });

    it('gives concurrent requests each their own request id', async () => {
      const created = await t.post(
        '/expenses',
        { category: 'Gas', amount: 100, date: '2025-03-20' },
        { token: manager.token },
      );
      const id = created.body.expense._id;
      const amounts = [101, 102, 103, 104, 105, 106];
      const answers = await Promise.all(
        amounts.map((amount) =>
          t.put(
            `/expenses/${id}`,
            { category: 'Gas', amount, date: '2025-03-20' },
            { token: manager.token, headers: { 'x-request-id': `put-${amount}` } },
          ),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(amounts.map(() => 200));
      const { events } = await trail(`?entity=expense&entityId=${id}`);
      const changes = events.filter((e) => e.action === 'changed');
      expect(changes).toHaveLength(amounts.length);
      for (const event of changes) expect(event.requestId).toBe(`put-${event.after.amountPaise / 100}`);
      // The row lock serialises the changes: each one's "before" is the previous one's "after".
      const chain = [...changes].reverse();
      chain.slice(1).forEach((event, i) => expect(event.before).toEqual(chain[i].after));
    });

    it('records nothing when the change is refused (400, 403, 404)', async () => {
      const created = await t.post(
        '/expenses',
        { category: 'Gas', amount: 500, date: '2025-03-21' },
        { token: manager.token },
      );
      const id = created.body.expense._id;
      const before = await countRows();
      const refused = [
        await t.post(
          '/expenses',
          { category: 'Gas', amount: 10.555, date: '2025-03-21' },
          { token: manager.token },
        ),
        await t.post(
          '/expenses',
          { category: 'Caviar', amount: 10, date: '2025-03-21' },
          { token: manager.token },
        ),
        await t.put(`/expenses/${id}`, { category: 'Gas', amount: 0, date: '2025-03-21' }, { token: admin }),
        await t.put(
          `/expenses/${id}`,
          { category: 'Gas', amount: 9, date: '2025-03-21' },
          { token: treasurer.token },
        ),
        await t.delete(`/expenses/${id}`, { token: treasurer.token }),
        await t.delete('/expenses/00000000-0000-4000-8000-000000000000', { token: admin }),
      ];
      expect(refused.map((r) => r.status)).toEqual([400, 400, 400, 403, 403, 404]);
      expect(await countRows()).toBe(before);
    });

    it('writes the change and its audit row in one transaction: no audit row, no change', async () => {
      const created = await t.post(
        '/expenses',
        { category: 'Gas', amount: 700, date: '2025-03-22' },
        { token: manager.token },
      );
      const id = created.body.expense._id;
      const before = await countRows();
      // The database refuses audit rows for a moment; the expense must stay as it was.
      await execute(`create function test_refuse_audit() returns trigger as $$
        begin raise exception 'audit unavailable'; end; $$ language plpgsql`);
      await execute(`create trigger test_refuse_audit before insert on audit_events
        for each row execute function test_refuse_audit()`);
      try {
        const put = await t.put(
          `/expenses/${id}`,
          { category: 'Gas', amount: 999, date: '2025-03-22' },
          { token: manager.token },
        );
        expect(put.status).toBe(500);
        const post = await t.post(
          '/expenses',
          { category: 'Gas', amount: 1, date: '2025-03-22' },
          { token: manager.token },
        );
        expect(post.status).toBe(500);
      } finally {
        await execute('drop trigger test_refuse_audit on audit_events');
        await execute('drop function test_refuse_audit()');
      }
      expect((await t.get(`/expenses/${id}`, { token: admin })).body.expense.amount).toBe(700);
      const list = await t.get('/expenses?startDate=2025-03-22&endDate=2025-03-22', { token: admin });
      expect(list.body.pagination.total).toBe(1);
      expect(await countRows()).toBe(before);
    });
  });

  describe('membership', () => {
    it('records approval, role changes and rejection with the status and role before and after', async () => {
      const reg = await t.post('/auth/register', {
        email: 'kavya@test.local',
        password: 'password-kavya-1',
        fullName: 'Kavya Iyer',
        collegeId: 'C900',
        room: 'R-900',
        phone: '9876500900',
      });
      const id = reg.body.userId;
      expect((await t.put(`/users/${id}/approve`, undefined, { token: admin })).status).toBe(200);
      // Approving again changes nothing, so it records nothing.
      expect((await t.put(`/users/${id}/approve`, undefined, { token: admin })).status).toBe(200);
      expect((await t.put(`/users/${id}/role`, { role: 'treasurer' }, { token: admin })).status).toBe(200);
      expect((await t.put(`/users/${id}/reject`, undefined, { token: admin })).status).toBe(200);

      const { events } = await trail(`?entity=user&entityId=${id}`);
      expect(events.map((e) => [e.action, e.before, e.after])).toEqual([
        ['rejected', { status: 'approved', role: 'treasurer' }, { status: 'rejected', role: 'treasurer' }],
        ['role-changed', { status: 'approved', role: 'student' }, { status: 'approved', role: 'treasurer' }],
        ['approved', { status: 'pending', role: 'student' }, { status: 'approved', role: 'student' }],
      ]);
      expect(events.every((e) => e.actor?._id === adminId && e.entity === 'user')).toBe(true);
    });

    it('records nothing for a refused membership change (last admin, own rejection, bad role)', async () => {
      const before = await countRows();
      expect((await t.put(`/users/${adminId}/role`, { role: 'student' }, { token: admin })).status).toBe(409);
      expect((await t.put(`/users/${adminId}/reject`, undefined, { token: admin })).status).toBe(409);
      expect((await t.put(`/users/${student.id}/role`, { role: 'chef' }, { token: admin })).status).toBe(400);
      expect(await countRows()).toBe(before);
    });

    it('records the first admin the service made at start-up, with no actor', async () => {
      const { events } = await trail(`?entity=user&entityId=${adminId}`);
      expect(events).toEqual([
        expect.objectContaining({
          action: 'admin-ensured',
          actor: null,
          before: null,
          after: { status: 'approved', role: 'admin' },
          requestId: null,
        }),
      ]);
    });
  });

  describe('reading it', () => {
    it('is for admins and treasurers only', async () => {
      for (const token of [student.token, manager.token]) {
        expect(await t.get('/audit', { token })).toMatchObject({ status: 403, body: { error: 'Forbidden' } });
      }
      expect((await t.get('/audit')).status).toBe(401);
      expect((await t.get('/audit', { token: treasurer.token })).status).toBe(200);
    });

    it('filters by actor and pages newest first', async () => {
      const all = await trail(`?actorId=${manager.id}&limit=100`);
      expect(all.pagination.total).toBeGreaterThanOrEqual(5);
      expect(all.events.every((e) => e.actor._id === manager.id)).toBe(true);
      const times = all.events.map((e) => Date.parse(e.at));
      expect(times).toEqual([...times].sort((a, b) => b - a));

      const second = await trail(`?actorId=${manager.id}&limit=2&page=2`);
      expect(second.pagination).toEqual({ page: 2, limit: 2, total: all.pagination.total });
      expect(second.events.map((e) => e._id)).toEqual(all.events.slice(2, 4).map((e) => e._id));
      const beyond = await trail(`?actorId=${manager.id}&limit=100&page=2`);
      expect(beyond.events).toEqual([]);

      const nobody = await trail(`?actorId=${student.id}`);
      expect(nobody).toMatchObject({ events: [], pagination: { total: 0 } });
    });

    it('filters by days in the mess time zone, both ends inclusive', async () => {
      const { events } = await trail('?limit=100');
      const newest = events[0];
      const day = localParts(new Date(newest.at), TZ).date;
      const oldestDay = localParts(new Date(events[events.length - 1].at), TZ).date;
      const ids = async (query: string) => (await trail(`${query}&limit=100`)).events.map((e) => e._id);

      expect(await ids(`?from=${day}&to=${day}`)).toContain(newest._id);
      expect(await ids(`?from=${oldestDay}`)).toHaveLength(events.length);
      expect(await ids(`?from=${addDays(day, 1)}`)).toEqual([]);
      expect(await ids(`?to=${addDays(oldestDay, -1)}`)).toEqual([]);
    });

    it('answers 400 naming the field for a bad filter', async () => {
      const cases: [string, string][] = [
        ['?entity=invoice', 'entity'],
        ['?actorId=not-a-uuid', 'actorId'],
        ['?from=2025-02-30', 'from'],
        ['?to=yesterday', 'to'],
        ['?from=2025-03-10&to=2025-03-09', 'to'],
        ['?limit=101', 'limit'],
        ['?limit=0', 'limit'],
        ['?page=0', 'page'],
        ['?limit=abc', 'limit'],
        [`?entityId=${'x'.repeat(101)}`, 'entityId'],
        ['?action=created', 'action'],
      ];
      for (const [query, field] of cases) {
        const res = await t.get(`/audit${query}`, { token: admin });
        expect([query, res.status, res.body.success, res.body.details?.map((d: any) => d.field)]).toEqual([
          query,
          400,
          false,
          [field],
        ]);
      }
    });
  });

  describe('append-only in the database itself', () => {
    it('refuses UPDATE, DELETE and TRUNCATE of audit rows, whoever sends them', async () => {
      const before = await countRows();
      expect(before).toBeGreaterThan(0);
      for (const statement of [
        "update audit_events set action = 'tampered'",
        "update audit_events set after = null where entity = 'expense'",
        'delete from audit_events',
        'truncate audit_events',
      ]) {
        await expect(execute(statement)).rejects.toMatchObject({
          code: '42501',
          message: expect.stringMatching(/^audit_events is append-only: (UPDATE|DELETE|TRUNCATE) refused$/),
        });
      }
      expect(await countRows()).toBe(before);
      const { events } = await trail('?limit=100');
      expect(events.some((e) => e.action === 'tampered')).toBe(false);
    });
  });
});
