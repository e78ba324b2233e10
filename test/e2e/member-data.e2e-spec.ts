import { formatRupees } from '../../src/common/money/money';
import { Database } from '../../src/database/database';
import { messSetup, TestApp } from '../support/app';
import { fixClock, notificationsOf } from '../support/notifications';
import { asOwner } from '../support/owner-sql';

type Member = Awaited<ReturnType<TestApp['member']>>;

/** An instant of the mess's clock (Asia/Kolkata, +05:30). */
const ist = (date: string, time: string) => new Date(`${date}T${time}:00+05:30`);

/** The person whose data this file exports and erases: values found nowhere else in the database. */
const PERSON = {
  email: 'ashwini.privacy@college.edu',
  password: 'ashwini-password-long-1',
  fullName: 'Ashwini Zorawar-Quill',
  collegeId: 'CS21ZQ4217',
  room: 'Q-917',
  phone: '9123456780',
};
/** How the database holds them (the phone as E.164). */
const STORED_VALUES = [PERSON.email, PERSON.fullName, PERSON.collegeId, PERSON.phone];

const NOTICE = {
  version: '2026-11',
  url: 'https://college.edu/mess/privacy',
  grievanceOfficer: { name: 'Dr. R. Iyer', email: 'grievance@college.edu' },
};

/** The status, or a failure that shows the body. */
function expectStatus(res: { status: number; body: unknown }, status: number): void {
  if (res.status !== status)
    throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
}

/** Every number in a document with where it is, so two documents compare to the paisa whatever names they show. */
function numbers(value: unknown, path = '$'): string[] {
  if (typeof value === 'number') return [`${path}=${value}`];
  if (Array.isArray(value)) return value.flatMap((v, i) => numbers(v, `${path}[${i}]`));
  if (value && typeof value === 'object')
    return Object.entries(value as Record<string, unknown>)
      .sort(([a], [b]) => a.localeCompare(b))
      .flatMap(([k, v]) => numbers(v, `${path}.${k}`));
  return [];
}

/**
 * Extension 2.3, "A member's data": a member with history in two messes (moved from Alpha to Gamma) exports
 * everything of theirs, with no secret; erased, they are gone from every list and every text of the database, their
 * tokens and login refused, their email free; and every bill, statement and account total is the same to the paisa.
 */
describe("A member's data: the notice, the export and erasure", () => {
  let t: TestApp;
  let admin: string;
  let alphaManager: Member;
  let alphaTreasurer: Member;
  let gammaManager: Member;
  let gammaTreasurer: Member;
  let personId: string;
  let personToken: string;
  /** A second token of the person, logged out: its id must not be in the export. */
  let loggedOutToken: string;
  /** The person's choice in a term's window (the deployment's tables): in the export. */
  let choice: { windowId: string; preferences: string[] };
  /** Ids of the person's records, by what the export calls them. */
  const ids = {
    attendance: [] as string[],
    feedback: [] as string[],
    leaves: [] as string[],
    extras: [] as string[],
    paymentClaims: [] as string[],
    alphaEntries: [] as string[],
    gammaEntries: [] as string[],
  };
  /** The bills, statements and account lists of both messes as they were before the erasure. */
  let before: Record<string, unknown>;

  const figures = async () => {
    const read = async (url: string, token: string) => {
      const res = await t.get(url, { token });
      expectStatus(res, 200);
      return res.body;
    };
    return {
      alphaBill: await read('/analytics/shares?month=2030-01&mess=alpha', admin),
      alphaBillFeb: await read('/analytics/shares?month=2030-02&mess=alpha', admin),
      gammaBill: await read('/analytics/shares?month=2030-02&mess=gamma', admin),
      alphaMonth: await read('/analytics/months/2030-01?mess=alpha', admin),
      gammaMonth: await read('/analytics/months/2030-02?mess=gamma', admin),
      alphaStatement: await read(`/accounts/${personId}/statement?from=2030-01&to=2030-03&mess=alpha`, admin),
      gammaStatement: await read(`/accounts/${personId}/statement?from=2030-01&to=2030-03&mess=gamma`, admin),
      alphaAccounts: others(await read('/accounts?mess=alpha', admin)),
      gammaAccounts: others(await read('/accounts?mess=gamma', admin)),
    };
  };

  /** An accounts list without the person's line and the count (an erased person is in no list of dues). */
  const others = (list: any) => ({
    accounts: (list.accounts as { userId: { _id: string } }[]).filter((a) => a.userId._id !== personId),
    totals: list.totals,
  });

  /** Where staff free text and a manager's alert name the person (checked before the erasure, gone after). */
  const namedBy = async () =>
    (
      (await asOwner(
        t.app.get(Database),
        `select (select count(*) from notifications n join users u on u.id = n.user_id
                  where n.type = 'DISCREPANCY_ALERT' and u.role = 'manager'
                    and n.content like '%${PERSON.fullName}%')::int as alerts,
                (select count(*) from leaves where decision_note like '%${PERSON.fullName}%'
                    and decision_note like '%${PERSON.email}%')::int as notes,
                (select count(*) from expenses where description like '%${PERSON.fullName}%'
                    and description like '%${PERSON.phone}%')::int as expenses`,
      )) as { rows: { alerts: number; notes: number; expenses: number }[] }
    ).rows[0];

  /** The person's balance in a mess, paid to zero with a recorded payment. */
  const settle = async (mess: string, treasurer: Member, date: string) => {
    const account = await t.get(`/accounts/${personId}?mess=${mess}`, { token: admin });
    expectStatus(account, 200);
    const balance = account.body.balance as number;
    if (balance > 0) {
      const paid = await t.post(
        `/accounts/${personId}/payments`,
        { amount: balance, date, method: 'cash', note: 'Settled at the counter' },
        { token: treasurer.token },
      );
      expectStatus(paid, 201);
    }
  };

  beforeAll(async () => {
    t = await TestApp.start({ MESS_TIMEZONE: 'Asia/Kolkata' });
    admin = await t.adminToken();
    const clock = fixClock(t, ist('2030-01-10', '08:00'));
    expect((await t.post('/auth/admin/setup', messSetup(), { token: admin })).status).toBe(200);
    const withEggs = (messName: string, slug: string) =>
      messSetup({ messName, slug, extraItems: [{ name: 'Egg', price: 12 }] });
    const alpha = await t.post('/messes', withEggs('Alpha', 'alpha'), { token: admin });
    const gamma = await t.post('/messes', withEggs('Gamma', 'gamma'), { token: admin });
    expect([alpha.status, gamma.status]).toEqual([201, 201]);
    alphaManager = await t.member('manager', { messId: alpha.body.mess._id });
    alphaTreasurer = await t.member('treasurer', { messId: alpha.body.mess._id });
    gammaManager = await t.member('manager', { messId: gamma.body.mess._id });
    gammaTreasurer = await t.member('treasurer', { messId: gamma.body.mess._id });
    // A peer in each mess, so the bills have someone else to share with.
    const alphaPeer = await t.member('student', { messId: alpha.body.mess._id });
    const gammaPeer = await t.member('student', { messId: gamma.body.mess._id });
    for (const upi of [
      ['alpha', alphaTreasurer],
      ['gamma', gammaTreasurer],
    ] as const) {
      const set = await t.patch(
        `/auth/admin/config?mess=${upi[0]}`,
        { upi: { vpa: `${upi[0]}@okaxis`, payeeName: `${upi[0]} mess` } },
        { token: upi[1].token },
      );
      expectStatus(set, 200);
    }

    // The notice, then the person registers accepting it, in Alpha.
    expect((await t.patch('/auth/admin/config', { privacyNotice: NOTICE }, { token: admin })).status).toBe(
      200,
    );
    const register = { ...PERSON, mess: 'alpha' };
    const refused = await t.post('/auth/register', register);
    expect([refused.status, refused.body.details?.[0]?.field]).toEqual([400, 'acceptNotice']);
    const registered = await t.post('/auth/register', { ...register, acceptNotice: NOTICE.version });
    expectStatus(registered, 201);
    personId = registered.body.userId;
    // Approved half an hour after registering: the membership starts at the approval.
    clock.set(ist('2030-01-10', '08:30'));
    expect((await t.put(`/users/${personId}/approve`, undefined, { token: admin })).status).toBe(200);
    personToken = await t.login(PERSON.email, PERSON.password);
    loggedOutToken = await t.login(PERSON.email, PERSON.password);
    expect((await t.post('/auth/logout', undefined, { token: loggedOutToken })).status).toBe(200);

    // January in Alpha: marks, feedback, leave, an extra, a claim accepted; then the month closed and settled.
    for (const [m, token] of [
      [alphaPeer, alphaPeer.token],
      [undefined, personToken],
    ] as const) {
      const mark = await t.post(
        '/attendance',
        { date: '2030-01-10', mealType: 'Lunch', status: 'present' },
        { token },
      );
      expectStatus(mark, 201);
      if (!m) ids.attendance.push(mark.body.attendance?._id ?? mark.body._id);
    }
    const dinner = await t.post(
      '/attendance',
      { date: '2030-01-10', mealType: 'Dinner', status: 'present' },
      { token: personToken },
    );
    expectStatus(dinner, 201);
    ids.attendance.push(dinner.body.attendance?._id ?? dinner.body._id);
    // Staff free text naming the person, with their phone.
    const expense = {
      category: 'Gas',
      amount: 300,
      description: `Cylinder fetched by ${PERSON.fullName} (${PERSON.phone})`,
      date: '2030-01-10',
    };
    expect((await t.post('/expenses', expense, { token: alphaManager.token })).status).toBe(201);
    const extra = await t.post(
      '/extras',
      { userId: personId, date: '2030-01-10', item: 'Egg', quantity: 2 },
      { token: alphaManager.token },
    );
    expectStatus(extra, 201);
    ids.extras.push(extra.body.extra._id);
    const leave = await t.post(
      '/leaves',
      { startDate: '2030-01-20', endDate: '2030-01-22', reason: `Home; call ${PERSON.phone}` },
      { token: personToken },
    );
    expectStatus(leave, 201);
    ids.leaves.push(leave.body.leave._id);
    // A decision note naming them, with their email.
    const rejected = await t.put(
      `/leaves/${leave.body.leave._id}/reject?mess=alpha`,
      { reason: `${PERSON.fullName} has exams; wrote from ${PERSON.email}` },
      { token: admin },
    );
    expectStatus(rejected, 200);

    clock.set(ist('2030-01-10', '15:00'));
    const feedback = await t.post(
      '/feedback',
      { date: '2030-01-10', mealType: 'Lunch', rating: 4, comment: `Good dal, says ${PERSON.fullName}` },
      { token: personToken },
    );
    expectStatus(feedback, 201);
    ids.feedback.push(feedback.body.feedback._id);
    // A mark after the meal: audited, with the member by id; the admin marks it, so Alpha's manager is alerted
    // (DISCREPANCY_ALERT, naming the member).
    const late = await t.post(
      '/attendance?mess=alpha',
      { userId: personId, date: '2030-01-10', mealType: 'Breakfast', status: 'present' },
      { token: admin },
    );
    expectStatus(late, 201);
    ids.attendance.push(late.body.attendance?._id ?? late.body._id);

    const adjustment = await t.post(
      `/accounts/${personId}/adjustments`,
      { direction: 'debit', amount: 150, note: 'Guest meals' },
      { token: alphaTreasurer.token },
    );
    expectStatus(adjustment, 201);
    // Staff free text naming the member: an entry's note (in the ledger and its audit row).
    const named = await t.post(
      `/accounts/${personId}/adjustments`,
      { direction: 'debit', amount: 20, note: `Guest meal for ${PERSON.fullName}'s brother` },
      { token: alphaTreasurer.token },
    );
    expectStatus(named, 201);
    const claim = await t.post(
      '/accounts/me/payment-claims',
      { amount: 150, date: '2030-01-10', utr: '412233445566', note: `Paid by ${PERSON.fullName}` },
      { token: personToken },
    );
    expectStatus(claim, 201);
    ids.paymentClaims.push(claim.body.claim._id);
    const accepted = await t.put(`/accounts/payment-claims/${claim.body.claim._id}/accept`, undefined, {
      token: alphaTreasurer.token,
    });
    expectStatus(accepted, 200);

    clock.set(ist('2030-02-01', '09:00'));
    expect(
      (await t.post('/analytics/months/2030-01/close', undefined, { token: alphaTreasurer.token })).status,
    ).toBe(200);
    await settle('alpha', alphaTreasurer, '2030-02-01');

    // Moved to Gamma; February there: a mark, an extra, closed; its share left unpaid until the erasure is asked.
    const moved = await t.put(`/users/${personId}/mess`, { mess: 'gamma' }, { token: admin });
    expect([moved.status, moved.body.user?.mess?.slug]).toEqual([200, 'gamma']);
    clock.set(ist('2030-02-10', '08:00'));
    for (const token of [gammaPeer.token, personToken]) {
      const mark = await t.post(
        '/attendance',
        { date: '2030-02-10', mealType: 'Lunch', status: 'present' },
        { token },
      );
      expectStatus(mark, 201);
      if (token === personToken) ids.attendance.push(mark.body.attendance?._id ?? mark.body._id);
    }
    const gas = { category: 'Gas', amount: 450, description: 'Cylinder', date: '2030-02-10' };
    expect((await t.post('/expenses', gas, { token: gammaManager.token })).status).toBe(201);
    const gammaExtra = await t.post(
      '/extras',
      { userId: personId, date: '2030-02-10', item: 'Egg', quantity: 1 },
      { token: gammaManager.token },
    );
    expectStatus(gammaExtra, 201);
    ids.extras.push(gammaExtra.body.extra._id);
    clock.set(ist('2030-03-01', '09:00'));
    expect(
      (await t.post('/analytics/months/2030-02/close', undefined, { token: gammaTreasurer.token })).status,
    ).toBe(200);

    for (const [mess, list] of [
      ['alpha', ids.alphaEntries],
      ['gamma', ids.gammaEntries],
    ] as const) {
      const account = await t.get(`/accounts/${personId}?mess=${mess}&limit=100`, { token: admin });
      expectStatus(account, 200);
      list.push(...(account.body.entries as { _id: string }[]).map((e) => e._id));
    }
    expect(ids.alphaEntries.length).toBeGreaterThanOrEqual(5); // adjustments, claim's payment, charge, settlement
    expect(ids.gammaEntries.length).toBeGreaterThanOrEqual(1); // February's charge

    // A term's window, open now: the person ranks Alpha before Gamma.
    const opened = await t.post(
      '/mess-windows',
      {
        term: '2030 even semester',
        opensAt: ist('2030-03-01', '08:00').toISOString(),
        closesAt: ist('2030-03-20', '18:00').toISOString(),
        effectiveFrom: '2030-04-01',
        messes: ['alpha', 'gamma'],
      },
      { token: admin },
    );
    expectStatus(opened, 201);
    choice = {
      windowId: opened.body.window._id,
      preferences: [alpha.body.mess._id as string, gamma.body.mess._id as string],
    };
    expectStatus(
      await t.put(
        `/mess-windows/${choice.windowId}/choice`,
        { preferences: ['alpha', 'gamma'] },
        { token: personToken },
      ),
      200,
    );
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  it('serves the notice, and asks a member who accepted an older version again', async () => {
    const notice = await t.get('/privacy');
    expect(notice.body).toEqual({ success: true, notice: NOTICE });
    const me = await t.get(`/users/${personId}`, { token: personToken });
    expect(me.body.user.noticeAccepted).toEqual({ version: NOTICE.version, at: expect.any(String) });
    const next = { ...NOTICE, version: '2027-01' };
    expect((await t.patch('/auth/admin/config', { privacyNotice: next }, { token: admin })).status).toBe(200);
    // Not refused anywhere; their profile says which they accepted, and they accept the new one.
    expect((await t.get(`/users/${personId}`, { token: personToken })).body.user.noticeAccepted.version).toBe(
      NOTICE.version,
    );
    const wrong = await t.put(`/users/${personId}`, { acceptNotice: NOTICE.version }, { token: personToken });
    expect([wrong.status, wrong.body.details?.[0]?.field]).toEqual([400, 'acceptNotice']);
    const accepted = await t.put(`/users/${personId}`, { acceptNotice: '2027-01' }, { token: personToken });
    expect(accepted.body.user.noticeAccepted.version).toBe('2027-01');
    // A mess's PUT leaves the notice as it is; null removes it.
    expect((await t.get('/privacy')).body.notice.version).toBe('2027-01');
    expect((await t.patch('/auth/admin/config', { privacyNotice: null }, { token: admin })).status).toBe(200);
    expect((await t.get('/privacy')).body.notice).toBeNull();
    expect((await t.patch('/auth/admin/config', { privacyNotice: NOTICE }, { token: admin })).status).toBe(
      200,
    );
    // Only an admin sets it.
    expect(
      (await t.patch('/auth/admin/config', { privacyNotice: NOTICE }, { token: gammaManager.token })).status,
    ).toBe(403);
  });

  it('exports every record of the member, in both messes, as a streamed attachment with no secret', async () => {
    const res = await t.get('/users/me/data', { token: personToken });
    expectStatus(res, 200);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="mess-data-${personId}.json"`);
    // Written as it is read: sent in chunks, with no length known up front.
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.headers['content-length']).toBeUndefined();
    const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
    const data = JSON.parse(text);
    expect(data.user).toMatchObject({ _id: personId, email: PERSON.email, fullName: PERSON.fullName });
    // The first membership from the approval, not the registration; the move (as the trail has it) ends it.
    const [alphaId, gammaId] = choice.preferences;
    const moved = data.memberships[0]?.to as string;
    expect(data.memberships).toEqual([
      {
        mess: { _id: alphaId, slug: 'alpha', messName: 'Alpha' },
        from: ist('2030-01-10', '08:30').toISOString(),
        to: expect.any(String),
      },
      { mess: { _id: gammaId, slug: 'gamma', messName: 'Gamma' }, from: moved, to: null },
    ]);
    const idsOf = (list: { _id: string }[]) => list.map((r) => r._id).sort();
    expect(idsOf(data.attendance)).toEqual([...ids.attendance].sort());
    expect(idsOf(data.feedback)).toEqual(ids.feedback);
    expect(idsOf(data.leaves)).toEqual(ids.leaves);
    expect(idsOf(data.extras)).toEqual([...ids.extras].sort());
    expect(idsOf(data.paymentClaims)).toEqual(ids.paymentClaims);
    expect(idsOf(data.accountEntries.alpha)).toEqual([...ids.alphaEntries].sort());
    expect(idsOf(data.accountEntries.gamma)).toEqual([...ids.gammaEntries].sort());
    // The trail about them: their approval, move, the late mark, the leave, the account's entries.
    const actions = new Set((data.auditEvents as { action: string }[]).map((e) => e.action));
    for (const action of ['approved', 'moved', 'marked-after-meal', 'requested', 'adjustment-recorded'])
      expect(actions).toContain(action);
    expect(data.notifications).toEqual(expect.any(Array));
    expect(data.preferences).toMatchObject({ channel: 'email' });
    expect(data.choices).toEqual([
      {
        windowId: choice.windowId,
        term: '2030 even semester',
        // As GET /mess-windows/:id/choice shows them.
        preferences: [
          { _id: alphaId, slug: 'alpha', messName: 'Alpha' },
          { _id: gammaId, slug: 'gamma', messName: 'Gamma' },
        ],
        updatedAt: expect.any(String),
        allocation: null,
      },
    ]);
    // No secret: no password hash, token version, token id, reset secret.
    const [secrets] = (
      await asOwner(
        t.app.get(Database),
        `select u.password_hash, (select string_agg(jti::text, ',') from revoked_tokens where user_id = u.id) as jtis
           from users u where u.id = '${personId}'`,
      )
    ).rows as { password_hash: string; jtis: string }[];
    expect(secrets.password_hash.length).toBeGreaterThan(20);
    expect(text).not.toContain(secrets.password_hash);
    for (const jti of secrets.jtis.split(',')) expect(text).not.toContain(jti);
    for (const word of ['passwordHash', 'password_hash', 'tokenVersion', 'token_hash', personToken])
      expect(text).not.toContain(word);
  });

  it('refuses the erasure while an account is not settled, and the last admin', async () => {
    const asked = await t.post('/users/me/erasure', { reason: 'I left the hostel' }, { token: personToken });
    expect([asked.status, asked.body.request?.status]).toEqual([202, 'pending']);
    expect((await t.post('/users/me/erasure', {}, { token: personToken })).status).toBe(409);
    const list = await t.get('/users/erasure-requests?status=pending', { token: admin });
    expect(list.body.requests).toEqual([
      expect.objectContaining({
        user: { _id: personId, fullName: PERSON.fullName },
        reason: 'I left the hostel',
      }),
    ]);
    expect((await t.get('/users/erasure-requests', { token: gammaManager.token })).status).toBe(403);
    expect(
      (await t.post(`/users/${personId}/erase`, { confirm: true }, { token: gammaManager.token })).status,
    ).toBe(403);
    const noConfirm = await t.post(`/users/${personId}/erase`, {}, { token: admin });
    expect([noConfirm.status, noConfirm.body.details?.[0]?.field]).toEqual([400, 'confirm']);
    const unsettled = await t.post(`/users/${personId}/erase`, { confirm: true }, { token: admin });
    // Naming the mess and the balance in rupees (Gamma's February charge is unpaid).
    const gammaBalance = (await t.get(`/accounts/${personId}?mess=gamma`, { token: admin })).body.balance;
    expect(gammaBalance).toBeGreaterThan(0);
    expect([unsettled.status, unsettled.body.error]).toEqual([
      409,
      `Settle the account first: the balance in Gamma (gamma) is ${formatRupees(Math.round(gammaBalance * 100))}`,
    ]);
    const adminId = (await t.get('/users?role=admin', { token: admin })).body.users[0]._id;
    const lastAdmin = await t.post(`/users/${adminId}/erase`, { confirm: true }, { token: admin });
    expectStatus(lastAdmin, 409);
  });

  describe('erased', () => {
    let erased: { status: number; body: any };

    beforeAll(async () => {
      await settle('gamma', gammaTreasurer, '2030-03-01');
      await notificationsOf(t).triggers.idle();
      // Named, before the erasure, in a manager's alert, a leave's decision note and an expense's description.
      expect(await namedBy()).toEqual({ alerts: 1, notes: 1, expenses: 1 });
      before = await figures();
      // A trail row as an older version might have written it, with the person's values in its snapshot.
      await asOwner(
        t.app.get(Database),
        `insert into audit_events (mess_id, action, entity, entity_id, before, after)
           select mess_id, 'legacy-profile', 'user', id::text,
                  jsonb_build_object('contact', jsonb_build_array(email, phone), 'kept', 42),
                  jsonb_build_object('note', 'Room ' || room || ' of ' || full_name, 'status', status)
             from users where id = '${personId}'`,
      );
      // A table a future module adds (created as migrations create tables, so the service may write it), naming the
      // person in prose, JSON and a list: no code of erasure knows it.
      await asOwner(
        t.app.get(Database),
        'create table future_module_notes (id serial primary key, body text not null, detail jsonb, tags text[])',
      );
      await asOwner(
        t.app.get(Database),
        `insert into future_module_notes (body, detail, tags) values (
           'Ask ${PERSON.fullName} (${PERSON.email}) about the menu',
           '{"by": {"name": "${PERSON.fullName}", "phone": "+91${PERSON.phone}"}, "count": 3}',
           array['mess', '${PERSON.fullName}'])`,
      );
      erased = await t.post(`/users/${personId}/erase`, { confirm: true }, { token: admin });
    }, 60_000);

    it('answers the pseudonymised member', () => {
      expectStatus(erased, 200);
      expect(erased.body.user).toMatchObject({
        _id: personId,
        fullName: `Former member ${personId.slice(0, 6)}`,
        email: '',
        phone: null,
        collegeId: '',
        room: '',
        status: 'erased',
      });
    });

    it('lets nobody write their values back, or mail them a reset link', async () => {
      const restored = await t.put(`/users/${personId}`, { fullName: PERSON.fullName }, { token: admin });
      expect(restored.status).toBe(404);
      expect((await t.post(`/users/${personId}/password-reset`, undefined, { token: admin })).status).toBe(
        404,
      );
      expect((await t.put(`/users/${personId}/approve`, undefined, { token: admin })).status).toBe(404);
      expect((await t.put(`/users/${personId}/mess`, { mess: 'alpha' }, { token: admin })).status).toBe(404);
      expect((await t.post(`/users/${personId}/erase`, { confirm: true }, { token: admin })).status).toBe(
        409,
      );
    });

    it('refuses their login and every old token', async () => {
      expect((await t.post('/auth/login', { email: PERSON.email, password: PERSON.password })).status).toBe(
        404,
      );
      const old = await t.get('/auth/verify', { token: personToken });
      expect([old.status, old.body]).toEqual([401, { error: 'Invalid token' }]);
      expect((await t.get('/users/me/data', { token: personToken })).status).toBe(401);
    });

    it('keeps every bill, statement and account total of every month to the paisa', async () => {
      const after = await figures();
      expect(Object.keys(before).length).toBeGreaterThan(0);
      for (const key of Object.keys(before))
        expect([key, numbers((after as Record<string, unknown>)[key])]).toEqual([key, numbers(before[key])]);
    });

    it('lists them in no accounts list, however settled', async () => {
      for (const mess of ['alpha', 'gamma']) {
        for (const query of ['', '&status=settled']) {
          const res = await t.get(`/accounts?mess=${mess}${query}`, { token: admin });
          expectStatus(res, 200);
          const listed = (res.body.accounts as { userId: { _id: string } }[]).map((a) => a.userId._id);
          expect({ mess, query, listed: listed.includes(personId) }).toEqual({ mess, query, listed: false });
          expect(res.body.pagination.total).toBe(listed.length);
        }
      }
    });

    it('names them in no alert, decision note or expense any more: the pseudonym instead', async () => {
      expect(await namedBy()).toEqual({ alerts: 0, notes: 0, expenses: 0 });
      const pseudonym = `Former member ${personId.slice(0, 6)}`;
      const { rows } = (await asOwner(
        t.app.get(Database),
        `select (select string_agg(content, '|') from notifications where type = 'DISCREPANCY_ALERT') as alert,
                (select string_agg(decision_note, '|') from leaves where decision_note <> '') as note,
                (select string_agg(description, '|') from expenses where description like 'Cylinder fetched%') as expense`,
      )) as { rows: { alert: string; note: string; expense: string }[] };
      expect(rows[0].alert).toContain(pseudonym);
      expect(rows[0].note).toBe(`${pseudonym} has exams; wrote from `);
      expect(rows[0].expense).toBe(`Cylinder fetched by ${pseudonym} ()`);
    });

    it("replaces them in a future module's table too, and a closed month's figures stay refused", async () => {
      const database = t.app.get(Database);
      const pseudonym = `Former member ${personId.slice(0, 6)}`;
      const { rows } = (await asOwner(database, 'select body, detail, tags from future_module_notes')) as {
        rows: unknown[];
      };
      expect(rows).toEqual([
        {
          body: `Ask ${pseudonym} () about the menu`,
          detail: { by: { name: pseudonym, phone: '' }, count: 3 },
          tags: ['mess', pseudonym],
        },
      ]);
      // A text the pseudonym would make too long for its column's limit loses the name instead.
      await asOwner(
        database,
        'create table future_short (id serial primary key, body text check (char_length(body) <= 12))',
      );
      await asOwner(database, `insert into future_short (body) values ('Hi Ravi Rao!')`);
      await asOwner(
        database,
        `select erase_personal_text(gen_random_uuid(), 'Ravi Rao', '{}', '${pseudonym}', true)`,
      );
      expect((await asOwner(database, 'select body from future_short')).rows).toEqual([{ body: 'Hi !' }]);
      // Erasure's setting lets a closed month's text through, never its figures.
      await expect(
        asOwner(
          database,
          `do $$ begin perform set_config('app.personal_erasure', 'on', true);
             update expenses set amount_paise = amount_paise + 1 where date = '2030-01-10'; end $$`,
        ),
      ).rejects.toThrow(/Month 2030-01 is closed/);
    });

    it('lists them nowhere but the erased, names them in no audit row, reminder, dues line or export', async () => {
      const everyList = [
        await t.get('/users?limit=500', { token: admin }),
        await t.get('/members?mess=gamma&limit=500', { token: admin }),
        await t.get('/members?mess=alpha&limit=500', { token: admin }),
        await t.get('/accounts?mess=alpha', { token: admin }),
        await t.get('/accounts?mess=gamma', { token: admin }),
        await t.get('/accounts?status=due&mess=gamma', { token: admin }),
        await t.get('/audit?limit=100&mess=alpha', { token: admin }),
        await t.get('/audit?limit=100&mess=gamma', { token: admin }),
        await t.get('/feedback?mess=alpha', { token: admin }),
        await t.get('/leaves?mess=alpha', { token: admin }),
        await t.get('/accounts/payment-claims?mess=alpha', { token: admin }),
        await t.get(`/users/${personId}/data`, { token: admin }),
        await t.get('/users/erasure-requests', { token: admin }),
      ];
      for (const res of everyList) {
        expectStatus(res, 200);
        const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
        for (const value of STORED_VALUES) expect(text).not.toContain(value);
        expect(text).not.toContain('I left the hostel');
      }
      const users = everyList[0].body.users as { _id: string }[];
      expect(users.map((u) => u._id)).not.toContain(personId);
      const listed = await t.get('/users?status=erased', { token: admin });
      expect(listed.body.users.map((u: { _id: string }) => u._id)).toEqual([personId]);
      expect((await t.get('/users/erasure-requests?status=done', { token: admin })).body.requests).toEqual([
        expect.objectContaining({
          user: { _id: personId, fullName: `Former member ${personId.slice(0, 6)}` },
        }),
      ]);
    });

    it('leaves none of their values in any text or jsonb column of any table', async () => {
      const database = t.app.get(Database);
      const { rows: columns } = (await asOwner(
        database,
        `select table_schema, table_name, column_name from information_schema.columns
          where table_schema not in ('pg_catalog', 'information_schema')
            and data_type in ('text', 'character varying', 'jsonb', 'json', 'ARRAY', 'USER-DEFINED')
            and table_name in (select table_name from information_schema.tables where table_type = 'BASE TABLE')`,
      )) as { rows: { table_schema: string; table_name: string; column_name: string }[] };
      expect(columns.length).toBeGreaterThan(50);
      const found: string[] = [];
      for (const c of columns) {
        const column = `"${c.table_schema}"."${c.table_name}"."${c.column_name}"`;
        const { rows } = (await asOwner(
          database,
          `select "${c.column_name}"::text as v from "${c.table_schema}"."${c.table_name}"
            where "${c.column_name}" is not null`,
        )) as { rows: { v: string }[] };
        for (const row of rows)
          for (const value of [...STORED_VALUES, PERSON.room, 'I left the hostel'])
            if (row.v.toLowerCase().includes(value.toLowerCase())) found.push(`${column}: ${value}`);
      }
      expect(found).toEqual([]);
    });

    it('removes the values of an older audit row, and the trail still refuses every other change', async () => {
      const database = t.app.get(Database);
      const { rows } = (await asOwner(
        database,
        `select before, after from audit_events where action = 'legacy-profile'`,
      )) as { rows: { before: unknown; after: unknown }[] };
      expect(rows).toEqual([
        { before: { contact: [null, null], kept: 42 }, after: { note: null, status: 'approved' } },
      ]);
      for (const statement of [
        `update audit_events set action = 'rewritten' where action = 'legacy-profile'`,
        `update audit_events set before = '{"kept": 43}' where action = 'legacy-profile'`,
        `do $$ begin perform set_config('app.audit_erasure', 'on', true);
           update audit_events set after = '{"status": "rejected"}' where action = 'legacy-profile'; end $$`,
        `delete from audit_events where action = 'legacy-profile'`,
      ])
        await expect(asOwner(database, statement)).rejects.toThrow(/append-only/);
    });

    it('frees the email for a new registration, a new person', async () => {
      const again = await t.post('/auth/register', { ...PERSON, acceptNotice: NOTICE.version });
      expectStatus(again, 201);
      expect(again.body.userId).not.toBe(personId);
    });
  });
});
