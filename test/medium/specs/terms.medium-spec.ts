import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { translateDatabaseError } from '../../../src/common/errors/database-errors';
import { AuditTrail } from '../../../src/modules/audit-trail';
import { MembershipsService } from '../../../src/modules/memberships';
import { MessDirectory } from '../../../src/modules/messes';
// The table itself, for the test's own reads (the outbox module exports no table).
import { outboxEvents } from '../../../src/modules/outbox/outbox.schema';
import { AllocationService, TermsMemberData, TermsModule } from '../../../src/modules/terms';
import { CreateWindowDto } from '../../../src/modules/terms/dto/mess-windows.dto';
import { MessWindowsService } from '../../../src/modules/terms/mess-windows.service';
import { windowStatus } from '../../../src/modules/terms/mess-windows';
import type { MessWindowRow } from '../../../src/modules/terms/terms.schema';
import { UsersService } from '../../../src/modules/users';
// The table itself, to make a member who does not dine (the users module exports no table).
import { users } from '../../../src/modules/users/users.schema';
import { type MediumContext, type MediumMember, newMedium } from '../medium.factory';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/**
 * Term windows (extension 2.3) across the messes: the window's tables are the deployment's, but what a mess must see
 * is written in that mess (the window's audit rows, the allocation's durable event, the moves), so a window of A and
 * a third mess C writes nothing in B and moves none of B's members, and B's mess cannot be chosen in it; the
 * windows, choices, closes with their lotteries (checked against the published seed by this file's own SHA-256),
 * the moves on `effectiveFrom` (also late, around a move by hand) and the refusals, each with its status and body.
 * What /mess-windows answers over HTTP, with the mails: test/e2e/mess-windows.e2e-spec.ts.
 *
 * The tests run in order, on one clock:
 *   window 1, "2030 odd semester", C and A, term already begun: closed by the admin, moved at once;
 *   window 2, "2030 even semester", A, B and C, term from 1 May: allocated by the scheduler, moved on a late tick;
 *   window 3, "2030 summer", A and B: cancelled (then opened again, and allocated empty by a later tick);
 *   window 4, "2031 odd semester", A and C: two closes racing, then lines `full` and `left` at the term.
 */
describe('Terms (medium): windows across messes', () => {
  let ctx: MediumContext;
  let inB: MediumContext;
  let inC: MediumContext;
  let messC: string;
  let admin: MediumMember;
  let a1: MediumMember;
  let a2: MediumMember;
  let a3: MediumMember;
  let a4: MediumMember;
  let b1: MediumMember;
  let b2: MediumMember;
  let c1: MediumMember;
  let w1: MessWindowRow;
  let w2: MessWindowRow;

  beforeAll(async () => {
    // 10 March 2030, 08:30 in the mess's time zone (Asia/Kolkata)
    ctx = await newMedium({ imports: [TermsModule], now: new Date('2030-03-10T03:00:00Z') });
    inB = ctx.as(ctx.messes.b);
    // A third mess, C, for 3 members at most, as POST /messes makes one; B for 3 (its admin and two: full)
    const directory = ctx.module.get(MessDirectory);
    messC = (await directory.create(ctx.db, { slug: 'mess-c', capacity: 3, upi: null })).id;
    await directory.update(ctx.db, ctx.messes.b.id, { capacity: 3 });
    directory.changed();
    inC = ctx.as(messC);

    admin = await ctx.newMember('admin', { fullName: 'Anand Admin' });
    a1 = await ctx.newMember('student', { fullName: 'Asha One' });
    a2 = await ctx.newMember('student', { fullName: 'Arun Two' });
    a3 = await ctx.newMember('student', { fullName: 'Anita Three' });
    a4 = await ctx.newMember('student', { fullName: 'Ajay Four' });
    // a4 is approved but does not dine at the mess
    await ctx.inMess(ctx.messId, () => ctx.db.update(users).set({ dines: false }).where(eq(users.id, a4.id)));
    b1 = await inB.newMember('student', { fullName: 'Bimal One' });
    b2 = await inB.newMember('student', { fullName: 'Bela Two' });
    c1 = await inC.newMember('student', { fullName: 'Chitra One' });
  });
  afterAll(() => ctx?.close());

  const windows = () => ctx.get(MessWindowsService);
  const allocations = () => ctx.get(AllocationService);
  const at = (iso: string) => ctx.clock.set(new Date(iso));
  const choose = (member: MediumMember, id: string, preferences: string[]) =>
    windows().saveChoice(member.caller, id, preferences);
  /** Where each member is now, by name. */
  const messesOf = async (...members: MediumMember[]) => {
    const rows = await ctx.get(UsersService).findByIds(members.map((m) => m.id));
    const byId = new Map(rows.map((r) => [r.id, r.messId]));
    return members.map((m) => [m.fullName, byId.get(m.id)]);
  };
  const rosterIds = async (in_: MediumContext) =>
    (await in_.get(UsersService).roster({ limit: 50, offset: 0 })).rows.map((u) => u.id).sort();
  /** The window's audit rows in a mess, oldest first. */
  const auditActions = async (in_: MediumContext, id: string) =>
    (await in_.get(AuditTrail).page({ entity: 'window', entityId: id, limit: 50, offset: 0 })).rows
      .map((r) => [r.at.getTime(), r.action, r.messId] as const)
      .sort((p, q) => p[0] - q[0])
      .map(([, action, messId]) => [action, messId]);
  /** The allocation's durable events written in a mess (its members' results). */
  const allocatedEvents = (in_: MediumContext, id: string) =>
    in_.inMess(in_.messId, async () =>
      (await in_.db.select().from(outboxEvents).where(eq(outboxEvents.name, 'mess-window.allocated'))).filter(
        (row) => (row.payload as { windowId: string }).windowId === id,
      ),
    );
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

  it('opens a window over C and A, audited in C and A only; a bad body names every field, a term taken is 409', async () => {
    const bad = await ctx.refusal(
      ctx.dto(CreateWindowDto, {
        term: '',
        opensAt: '2030-03-10T04:00:00.000Z',
        closesAt: '2030-03-10T04:00:00.000Z',
        effectiveFrom: '2030-03-02',
        messes: ['mess-c', 'nowhere'],
      }),
    );
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, error: 'Validation failed' });
    expect((bad.body as { details: { field: string }[] }).details.map((d) => d.field).sort()).toEqual([
      'closesAt',
      'effectiveFrom',
      'messes',
      'term',
    ]);

    const body = await ctx.dto(CreateWindowDto, {
      term: '2030 odd semester',
      opensAt: '2030-03-10T04:00:00.000Z',
      closesAt: '2030-03-12T12:30:00.000Z',
      effectiveFrom: '2030-03-01',
      messes: ['mess-c', 'main'],
      maxPreferences: 2,
    });
    w1 = await windows().create(admin.caller, {
      term: body.term,
      opensAt: new Date(body.opensAt),
      closesAt: new Date(body.closesAt),
      effectiveFrom: body.effectiveFrom,
      messIds: [messC, ctx.messes.a.id],
      maxPreferences: body.maxPreferences,
    });
    expect(w1).toMatchObject({
      term: '2030 odd semester',
      effectiveFrom: '2030-03-01',
      messIds: [messC, ctx.messes.a.id], // in the order given
      maxPreferences: 2,
      seed: null,
      seats: null,
      allocatedAt: null,
      appliedAt: null,
      cancelledAt: null,
      createdBy: admin.id,
    });
    expect((await windows().list('scheduled')).map((w) => w.id)).toEqual([w1.id]);
    expect(await windows().list('open')).toEqual([]);

    // Its audit row in each of its messes, none in B
    expect(await auditActions(ctx, w1.id)).toEqual([['created', ctx.messes.a.id]]);
    expect(await auditActions(inC, w1.id)).toEqual([['created', messC]]);
    expect(await auditActions(inB, w1.id)).toEqual([]);

    // The same term again: the unique index, answered 409 by the exception filter
    const again = await windows()
      .create(admin.caller, {
        term: '2030 odd semester',
        opensAt: new Date('2030-03-10T04:00:00Z'),
        closesAt: new Date('2030-03-11T04:00:00Z'),
        effectiveFrom: '2030-04-01',
        messIds: [ctx.messes.a.id, ctx.messes.b.id],
      })
      .then(
        () => undefined,
        (error: unknown) => translateDatabaseError(error),
      );
    expect([again?.getStatus(), again?.getResponse()]).toEqual([
      409,
      { success: false, error: 'A window for this term exists' },
    ]);
    expect(await windows().list()).toHaveLength(1);
    expect(await auditActions(inB, w1.id)).toEqual([]);
  });

  it('takes choices only while open, of the messes of the window (never B), from approved diners', async () => {
    // 08:30, before opensAt (09:30)
    expect(await ctx.refusal(choose(a1, w1.id, ['mess-c']))).toEqual({
      status: 409,
      body: { success: false, error: 'The window is not open' },
    });
    at('2030-03-11T05:00:00Z');
    expect((await windows().list('open')).map((w) => w.id)).toEqual([w1.id]);

    const refused = async (member: MediumMember, id: string, preferences: string[]) =>
      ctx.refusal(choose(member, id, preferences));
    expect(await refused(a1, w1.id, ['mess-b'])).toEqual({
      status: 400,
      body: {
        success: false,
        error: 'Validation failed',
        details: [
          { field: 'preferences', message: 'preferences names mess-b, which is not a mess of this window' },
        ],
      },
    });
    expect((await refused(b1, w1.id, [ctx.messes.b.id])).status).toBe(400);
    expect((await refused(a1, w1.id, ['mess-c', messC])).body).toMatchObject({
      // (named as the second reference gave it)
      details: [{ field: 'preferences', message: `preferences names ${messC} twice` }],
    });
    expect(await refused(a1, UNKNOWN_ID, ['mess-c'])).toEqual({
      status: 404,
      body: { success: false, error: 'Window not found' },
    });
    expect(await refused(a4, w1.id, ['mess-c'])).toEqual({
      status: 403,
      body: { success: false, error: 'Only approved members who dine choose a mess' },
    });

    // Only the latest counts: a1 asks for A, then for C
    await choose(a1, w1.id, ['main']);
    const saved = await choose(a1, w1.id, ['mess-c']);
    expect(saved.choice).toMatchObject({ windowId: w1.id, userId: a1.id, preferences: [messC] });
    await choose(a2, w1.id, [messC, 'main']);
    await choose(a3, w1.id, ['main']);
    expect((await windows().choice(a2.caller, w1.id)).preferences).toEqual([messC, ctx.messes.a.id]);
    expect((await windows().choice(a1.caller, w1.id)).preferences).toEqual([messC]);

    // c1 chooses and withdraws (no choice then: 404), then chooses again
    await choose(c1, w1.id, ['mess-c']);
    await windows().withdrawChoice(c1.caller, w1.id);
    expect(await ctx.refusal(windows().choice(c1.caller, w1.id))).toEqual({
      status: 404,
      body: { success: false, error: 'Choice not found' },
    });
    expect((await ctx.refusal(windows().withdrawChoice(c1.caller, w1.id))).status).toBe(404);
    await choose(c1, w1.id, ['main']);
    expect(await ctx.refusal(windows().choice(b1.caller, w1.id))).toMatchObject({ status: 404 });
    // nothing is allocated yet
    expect(await ctx.refusal(allocations().allocation(w1.id))).toEqual({
      status: 409,
      body: { success: false, error: 'The window is not allocated yet' },
    });
  });

  it("closes window 1 by its published seed, moves A's and C's members at once, and writes nothing in B", async () => {
    at('2030-03-11T06:00:00Z');
    const closed = await allocations().closeNow(admin.caller, w1.id);
    // the term began on 1 March: moved at the allocation, the close now
    expect(windowStatus(closed, ctx.clock.now())).toBe('applied');
    expect(closed.seed).toMatch(/^[0-9a-f]{32}$/);
    expect(closed.closesAt).toEqual(new Date('2030-03-11T06:00:00Z'));
    // C: 3 seats less its 1 member; A: no limit
    expect(closed.seats).toEqual({ [messC]: 2, [ctx.messes.a.id]: null });

    const { lines, summary } = await allocations().allocation(w1.id);
    // The draw by this file's own SHA-256 of `seed:userId`, ascending
    const drawn = [a1, a2, a3, c1]
      .map((m) => ({ m, hash: sha256(`${closed.seed}:${m.id}`) }))
      .sort((p, q) => (p.hash < q.hash ? -1 : 1));
    const expected: Record<string, [string, string, number, string]> = {
      [a1.id]: [ctx.messes.a.id, messC, 1, 'moved'],
      [a2.id]: [ctx.messes.a.id, messC, 1, 'moved'],
      [a3.id]: [ctx.messes.a.id, ctx.messes.a.id, 1, 'stayed'],
      [c1.id]: [messC, ctx.messes.a.id, 1, 'moved'],
    };
    expect(
      lines.map((l) => [l.position, l.userId, l.hash, l.fromMessId, l.toMessId, l.rank, l.outcome]),
    ).toEqual(drawn.map(({ m, hash }, i) => [i + 1, m.id, hash, ...expected[m.id]]));
    expect(summary).toEqual({
      members: 4,
      placed: 4,
      firstChoice: 4,
      unplaced: 0,
      byMess: [
        { messId: messC, seats: 2, placed: 2 },
        { messId: ctx.messes.a.id, seats: null, placed: 2 },
      ],
    });

    expect(await messesOf(a1, a2, a3, c1, b1, b2)).toEqual([
      ['Asha One', messC],
      ['Arun Two', messC],
      ['Anita Three', ctx.messes.a.id],
      ['Chitra One', ctx.messes.a.id],
      ['Bimal One', ctx.messes.b.id],
      ['Bela Two', ctx.messes.b.id],
    ]);
    expect(await rosterIds(ctx)).toEqual([admin.id, a3.id, a4.id, c1.id].sort());
    expect(await rosterIds(inC)).toEqual([a1.id, a2.id].sort());
    expect(await rosterIds(inB)).toEqual([ctx.messes.b.admin!.id, b1.id, b2.id].sort());

    // The close in the trail of each of its messes, with the count; none in B
    const closedRow = (
      await ctx.get(AuditTrail).page({ entity: 'window', entityId: w1.id, limit: 50, offset: 0 })
    ).rows.find((r) => r.action === 'closed');
    expect(closedRow?.after).toMatchObject({ seed: closed.seed, members: 4, placed: 4, unplaced: 0 });
    expect((await auditActions(ctx, w1.id)).map(([action]) => action)).toEqual(['created', 'closed']);
    expect((await auditActions(inC, w1.id)).map(([action]) => action)).toEqual(['created', 'closed']);
    expect(await auditActions(inB, w1.id)).toEqual([]);

    // MESS_ALLOCATED: one durable event per mess the members were in at the close, with that mess's members only
    const resultsIn = async (in_: MediumContext) =>
      (await allocatedEvents(in_, w1.id)).map((row) =>
        (row.payload as { results: { userId: string }[] }).results.map((r) => r.userId).sort(),
      );
    expect(await resultsIn(ctx)).toEqual([[a1.id, a2.id, a3.id].sort()]);
    expect(await resultsIn(inC)).toEqual([[c1.id]]);
    expect(await resultsIn(inB)).toEqual([]);
  });

  it('refuses what an applied window no longer allows (409), and shows a member their own line only', async () => {
    expect(await ctx.refusal(windows().cancel(admin.caller, w1.id))).toEqual({
      status: 409,
      body: { success: false, error: 'The window is applied: its moves are made' },
    });
    expect(await ctx.refusal(allocations().closeNow(admin.caller, w1.id))).toEqual({
      status: 409,
      body: { success: false, error: 'The window is already allocated' },
    });
    expect((await ctx.refusal(choose(a3, w1.id, ['mess-c']))).body).toEqual({
      success: false,
      error: 'The window is not open',
    });
    expect((await ctx.refusal(windows().withdrawChoice(a3.caller, w1.id))).status).toBe(409);

    const all = await allocations().allocation(w1.id);
    const own = await allocations().allocation(w1.id, c1.id);
    expect(own.lines).toHaveLength(1);
    expect(own.lines[0]).toMatchObject({ userId: c1.id, fromMessId: messC, toMessId: ctx.messes.a.id });
    expect(own.summary).toEqual(all.summary);
    // a member of B, who had no choice: no line
    expect((await allocations().allocation(w1.id, b1.id)).lines).toEqual([]);
  });

  it('allocates window 2 at its close by the scheduler: B full (0 seats) leaves its chooser unplaced, nobody moves before the term', async () => {
    // A, B and C; one choice each; the term begins on 1 May
    w2 = await windows().create(admin.caller, {
      term: '2030 even semester',
      opensAt: new Date('2030-03-12T04:00:00Z'),
      closesAt: new Date('2030-03-20T12:30:00Z'),
      effectiveFrom: '2030-05-01',
      messIds: [ctx.messes.a.id, ctx.messes.b.id, messC],
      maxPreferences: 1,
    });
    // Still 11 March: the admin cannot close a window that has not opened
    expect(await ctx.refusal(allocations().closeNow(admin.caller, w2.id))).toEqual({
      status: 409,
      body: { success: false, error: 'The window has not opened yet' },
    });
    at('2030-03-13T04:00:00Z');
    expect((await ctx.refusal(choose(a3, w2.id, ['mess-c', 'main']))).body).toEqual({
      success: false,
      error: 'Validation failed',
      details: [
        {
          field: 'preferences',
          message: "preferences must name 1 to 1 messes (this window's maxPreferences)",
        },
      ],
    });
    await choose(c1, w2.id, ['mess-b']); // B has no seat, and nobody leaves it
    await choose(a3, w2.id, ['mess-c']); // C has one seat (a1, a2 of 3)
    await choose(a1, w2.id, ['main']); // back to A, no limit
    await choose(b2, w2.id, ['mess-b']); // their own mess: no seat needed
    // B's member chose in a window of B's: the window's tables are the deployment's, read the same from B
    expect((await inB.get(MessWindowsService).choice(b2.caller, w2.id)).preferences).toEqual([
      ctx.messes.b.id,
    ]);

    // past closesAt, before the scheduler's tick: closed
    at('2030-03-20T13:00:00Z');
    expect((await windows().list('closed')).map((w) => w.id)).toEqual([w2.id]);
    expect(await allocations().runDue()).toEqual({ allocated: 1, moved: 0 });
    const allocated = await windows().get(w2.id);
    expect(windowStatus(allocated, ctx.clock.now())).toBe('allocated');
    expect(allocated.closesAt).toEqual(new Date('2030-03-20T12:30:00Z')); // its own close, not the tick's
    expect(allocated.seats).toEqual({ [ctx.messes.a.id]: null, [ctx.messes.b.id]: 0, [messC]: 1 });

    const { lines, summary } = await allocations().allocation(w2.id);
    expect(lines).toHaveLength(4);
    const byUser = new Map(lines.map((l) => [l.userId, [l.fromMessId, l.toMessId, l.rank, l.outcome]]));
    expect(Object.fromEntries([c1, a3, a1, b2].map((m) => [m.fullName, byUser.get(m.id)]))).toEqual({
      'Chitra One': [ctx.messes.a.id, null, null, null],
      'Anita Three': [ctx.messes.a.id, messC, 1, null],
      'Asha One': [messC, ctx.messes.a.id, 1, null],
      'Bela Two': [ctx.messes.b.id, ctx.messes.b.id, 1, null],
    });
    expect(lines.map((l) => l.hash)).toEqual(
      [...lines.map((l) => sha256(`${allocated.seed}:${l.userId}`))].sort(),
    );
    expect(summary).toEqual({
      members: 4,
      placed: 3,
      firstChoice: 3,
      unplaced: 1,
      byMess: [
        { messId: ctx.messes.a.id, seats: null, placed: 1 },
        { messId: ctx.messes.b.id, seats: 0, placed: 1 },
        { messId: messC, seats: 1, placed: 1 },
      ],
    });
    // nobody moved yet; the close is in the trail of all three messes this time, and each mess has its members' event
    expect(await messesOf(c1, a3, a1, b2)).toEqual([
      ['Chitra One', ctx.messes.a.id],
      ['Anita Three', ctx.messes.a.id],
      ['Asha One', messC],
      ['Bela Two', ctx.messes.b.id],
    ]);
    expect((await auditActions(inB, w2.id)).map(([action]) => action)).toEqual(['created', 'closed']);
    expect(await allocatedEvents(inB, w2.id)).toHaveLength(1);
    // a second tick allocates nothing again
    expect(await allocations().runDue()).toEqual({ allocated: 0, moved: 0 });
  });

  it('moves window 2 on the first tick of the term (late, after downtime), keeping a move by hand in between', async () => {
    // a1 is moved back to A by hand meanwhile
    expect((await ctx.get(MembershipsService).move(admin.caller, [a1.id], 'main')).moved).toBe(1);
    // 23:59 on 30 April in the mess's time zone: the term has not begun
    at('2030-04-30T18:29:00Z');
    expect(await allocations().runDue()).toEqual({ allocated: 0, moved: 0 });
    expect(windowStatus(await windows().get(w2.id), ctx.clock.now())).toBe('allocated');
    // the service was down on 1 May; its first tick, on 3 May, makes the moves
    at('2030-05-03T05:30:00Z');
    expect(await allocations().runDue()).toEqual({ allocated: 0, moved: 1 });
    expect(windowStatus(await windows().get(w2.id), ctx.clock.now())).toBe('applied');

    const outcomes = new Map((await allocations().allocation(w2.id)).lines.map((l) => [l.userId, l.outcome]));
    expect(Object.fromEntries([c1, a3, a1, b2].map((m) => [m.fullName, outcomes.get(m.id)]))).toEqual({
      'Chitra One': 'stayed', // none of their choices
      'Anita Three': 'moved',
      'Asha One': 'moved-by-hand', // no longer in C, where the lottery found them
      'Bela Two': 'stayed', // their own mess
    });
    expect(await rosterIds(ctx)).toEqual([admin.id, a1.id, a4.id, c1.id].sort());
    expect(await rosterIds(inC)).toEqual([a2.id, a3.id].sort());
    expect(await rosterIds(inB)).toEqual([ctx.messes.b.admin!.id, b1.id, b2.id].sort());
    // a later tick moves nobody twice
    at('2030-05-03T05:31:00Z');
    expect(await allocations().runDue()).toEqual({ allocated: 0, moved: 0 });
  });

  it('cancels window 3 (audited in A and B, not C): no lottery at its close, choices refused, its term free again', async () => {
    const w3 = await windows().create(admin.caller, {
      term: '2030 summer',
      opensAt: new Date('2030-05-03T05:00:00Z'),
      closesAt: new Date('2030-05-04T05:00:00Z'),
      effectiveFrom: '2030-06-01',
      messIds: [ctx.messes.a.id, ctx.messes.b.id],
    });
    expect(w3.maxPreferences).toBe(3); // the default
    await choose(b1, w3.id, ['main']);
    const cancelled = await windows().cancel(admin.caller, w3.id);
    expect(windowStatus(cancelled, ctx.clock.now())).toBe('cancelled');
    expect(cancelled.cancelledAt).toEqual(new Date('2030-05-03T05:31:00Z'));
    expect(await ctx.refusal(windows().cancel(admin.caller, w3.id))).toEqual({
      status: 409,
      body: { success: false, error: 'The window is cancelled' },
    });
    expect((await ctx.refusal(allocations().closeNow(admin.caller, w3.id))).body).toEqual({
      success: false,
      error: 'The window is cancelled',
    });
    expect((await ctx.refusal(choose(b1, w3.id, ['mess-b']))).status).toBe(409);
    // the choice is kept for the record
    expect((await windows().choice(b1.caller, w3.id)).preferences).toEqual([ctx.messes.a.id]);

    expect((await auditActions(ctx, w3.id)).map(([action]) => action)).toEqual(['created', 'cancelled']);
    expect((await auditActions(inB, w3.id)).map(([action]) => action)).toEqual(['created', 'cancelled']);
    expect(await auditActions(inC, w3.id)).toEqual([]);

    at('2030-05-04T06:00:00Z');
    expect(await allocations().runDue()).toEqual({ allocated: 0, moved: 0 });
    expect(await windows().get(w3.id)).toMatchObject({ seed: null, allocatedAt: null });
    expect(await messesOf(b1)).toEqual([['Bimal One', ctx.messes.b.id]]);

    // The term is free again; every window, newest first, the same read from any mess
    const w3again = await windows().create(admin.caller, {
      term: '2030 summer',
      opensAt: new Date('2030-05-05T05:00:00Z'),
      closesAt: new Date('2030-05-06T05:00:00Z'),
      effectiveFrom: '2030-06-01',
      messIds: [ctx.messes.a.id, ctx.messes.b.id],
    });
    const listed = (await windows().list()).map((w) => w.id);
    expect(listed).toEqual([w3again.id, w3.id, w2.id, w1.id]);
    expect((await inB.get(MessWindowsService).list()).map((w) => w.id)).toEqual(listed);
    expect((await windows().list('scheduled')).map((w) => w.id)).toEqual([w3again.id]);
    expect((await windows().list('cancelled')).map((w) => w.id)).toEqual([w3.id]);
    expect((await windows().list('applied')).map((w) => w.id)).toEqual([w2.id, w1.id]);
    expect(await ctx.refusal(windows().get(UNKNOWN_ID))).toEqual({
      status: 404,
      body: { success: false, error: 'Window not found' },
    });
  });

  it("gives a member's data export their choices in every window, with what the lottery and the move did", async () => {
    const data = ctx.get(TermsMemberData);
    const a1Choices = await data.choices(a1.id);
    expect(a1Choices).toHaveLength(2);
    expect(
      a1Choices.map((c) => [
        c.term,
        c.preferences.map((p) => p.slug),
        c.allocation?.toMessId,
        c.allocation?.outcome,
      ]),
    ).toEqual([
      ['2030 odd semester', ['mess-c'], messC, 'moved'],
      ['2030 even semester', ['main'], ctx.messes.a.id, 'moved-by-hand'],
    ]);
    expect(await data.choices(b1.id)).toEqual([
      {
        windowId: expect.any(String),
        term: '2030 summer',
        preferences: [{ _id: ctx.messes.a.id, slug: 'main', messName: expect.any(String) }],
        updatedAt: '2030-05-03T05:31:00.000Z',
        allocation: null, // cancelled before its lottery
      },
    ]);
    expect(await data.choices(a4.id)).toEqual([]);
  });
  it('runs one lottery when two closes race; at the term, a mess filled since leaves its line `full`, a member gone `left`', async () => {
    // C for 4 now (a2 and a3 in it: 2 seats), so both choosers of C are placed whatever the draw
    const directory = ctx.module.get(MessDirectory);
    await directory.update(ctx.db, messC, { capacity: 4 });
    directory.changed();
    const w4 = await windows().create(admin.caller, {
      term: '2031 odd semester',
      opensAt: new Date('2030-05-04T05:00:00Z'),
      closesAt: new Date('2030-05-10T00:00:00Z'),
      effectiveFrom: '2030-07-01',
      messIds: [ctx.messes.a.id, messC],
    });
    await choose(c1, w4.id, ['mess-c']);
    await choose(a1, w4.id, ['mess-c', 'main']);

    // the admin's close and the scheduler's at once (as two replicas would): one lottery, one seed
    at('2030-05-10T00:00:00Z');
    const [first, second] = await Promise.all([
      allocations().allocate(w4.id, admin.id),
      allocations().allocate(w4.id, null),
    ]);
    const ran = [first, second].filter((w) => w !== undefined);
    expect(ran).toHaveLength(1);
    expect((await windows().get(w4.id)).seed).toBe(ran[0]!.seed);
    const { lines, summary } = await allocations().allocation(w4.id);
    expect(lines.map((l) => [l.userId, l.toMessId, l.rank]).sort()).toEqual(
      [
        [a1.id, messC, 1],
        [c1.id, messC, 1],
      ].sort(),
    );
    expect(summary.byMess).toEqual([
      { messId: ctx.messes.a.id, seats: null, placed: 0 },
      { messId: messC, seats: 2, placed: 2 },
    ]);
    expect((await auditActions(ctx, w4.id)).map(([action]) => action)).toEqual(['created', 'closed']);
    expect((await auditActions(inC, w4.id)).map(([action]) => action)).toEqual(['created', 'closed']);

    // before the term: C back to 2 members at most (it has 2), and a1 is no longer approved
    await directory.update(ctx.db, messC, { capacity: 2 });
    directory.changed();
    await ctx.inMess(ctx.messId, () =>
      ctx.db.update(users).set({ status: 'rejected' }).where(eq(users.id, a1.id)),
    );
    at('2030-07-01T00:00:00Z');
    // this tick also allocates the reopened "2030 summer" (closed on 6 May, nobody chose): no lines, no moves
    expect(await allocations().runDue()).toEqual({ allocated: 1, moved: 0 });
    const summer = (await windows().list('applied')).filter((w) => w.term === '2030 summer');
    expect(summer).toHaveLength(1);
    expect((await allocations().allocation(summer[0].id)).summary).toMatchObject({ members: 0, placed: 0 });
    const outcomes = new Map((await allocations().allocation(w4.id)).lines.map((l) => [l.userId, l.outcome]));
    expect([outcomes.get(c1.id), outcomes.get(a1.id)]).toEqual(['full', 'left']);
    expect(windowStatus(await windows().get(w4.id), ctx.clock.now())).toBe('applied');
    expect(await messesOf(c1, a1)).toEqual([
      ['Chitra One', ctx.messes.a.id],
      ['Asha One', ctx.messes.a.id],
    ]);
    expect(await rosterIds(inC)).toEqual([a2.id, a3.id].sort());
  });
});
