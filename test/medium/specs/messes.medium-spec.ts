import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { type CurrentMember, OwnRecordsInAnyMess } from '../../../src/common/auth/auth.decorators';
import { requestContext, type RequestContext } from '../../../src/common/context/request-context';
import { databaseErrorCode, violatedUniqueConstraint } from '../../../src/common/errors/database-errors';
import { parseQueryString } from '../../../src/common/http/request-parsing';
import { FIRST_MESS_ID } from '../../../src/common/tenancy/mess-scope';
import { inTransaction } from '../../../src/database/transactions';
import { AuditTrail } from '../../../src/modules/audit-trail';
import {
  MESS_NOT_FOUND,
  MessDirectory,
  MessGuard,
  memberMoved,
  PastMesses,
  UNCONFIGURED_NAME,
} from '../../../src/modules/messes';
import { type MediumContext, type MediumMember, MESS_B_SETUP, newMedium } from '../medium.factory';

/** Two routes as a controller declares them: one showing the caller's own records in any mess they belonged to. */
class Routes {
  @OwnRecordsInAnyMess()
  ownRecords(): void {}

  staffOnly(): void {}
}

/**
 * The deployment's messes: the directory finds a mess by id or slug (cached until a change is announced), names
 * each by its own configuration, creates and changes rows under the table's rules and locks them in a caller's
 * transaction; the past messes are read from the moves in the trail of whichever mess the member joined; the mess
 * guard decides the mess a request acts in and refuses a member another mess's records. What /messes answers over
 * HTTP: test/e2e/messes*.e2e-spec.ts; moves through the memberships service: memberships.medium-spec.ts.
 */
describe('Messes (medium): the directory, past messes and the mess guard, with two messes', () => {
  let ctx: MediumContext;
  let inB: MediumContext;
  let aAdmin: MediumMember;
  let aStudent: MediumMember;
  let bStudent: MediumMember;
  /** A member of B who was moved there from A. */
  let mover: MediumMember;
  let movedAt: Date;
  let cId: string;

  beforeAll(async () => {
    ctx = await newMedium({ imports: [], now: new Date('2030-01-15T04:00:00Z') });
    inB = ctx.as(ctx.messes.b);
    aAdmin = await ctx.newMember('admin', { fullName: 'Anu Admin' });
    aStudent = await ctx.newMember('student', { fullName: 'Amar Student' });
    bStudent = await inB.newMember('student', { fullName: 'Bhanu Student' });
    mover = await inB.newMember('student', { fullName: 'Mira Mover' });
    // The move as the users module records it: one row in the trail of the mess joined, in the move's transaction.
    await inB.inMess(ctx.messes.b.id, () =>
      inTransaction(ctx.db, (tx) =>
        ctx.module
          .get(AuditTrail)
          .record(tx, memberMoved(aAdmin.id, mover.id, ctx.messes.a.id, ctx.messes.b.id)),
      ),
    );
    const [move] = await ctx.module
      .get(AuditTrail)
      .everyMess({ entity: 'user', entityId: mover.id, action: 'moved' });
    movedAt = move.at;
  });
  afterAll(() => ctx?.close());

  const directory = () => ctx.module.get(MessDirectory);
  /** What a failed write of the `messes` table broke: the SQLSTATE and, for a unique key, its index. */
  const failure = async (write: Promise<unknown>) => {
    try {
      await write;
    } catch (error) {
      return { code: databaseErrorCode(error), unique: violatedUniqueConstraint(error) };
    }
    throw new Error('expected the write to fail, and it succeeded');
  };

  it('finds each mess by id or by slug, whatever its case; an unknown name finds none', async () => {
    const a = await directory().find('main');
    const b = await directory().find('MESS-B');
    expect([a?.id, a?.slug, a?.capacity]).toEqual([FIRST_MESS_ID, 'main', null]);
    expect([b?.id, b?.slug]).toEqual([ctx.messes.b.id, 'mess-b']);
    expect((await directory().find(ctx.messes.b.id.toUpperCase()))?.slug).toBe('mess-b');
    expect(await directory().find('mess-z')).toBeUndefined();
    expect(await directory().find('00000000-0000-4000-8000-000000000abc')).toBeUndefined();
  });

  it("names each mess by its own configuration: A unconfigured, B as B's admin set it up", async () => {
    const labels = await directory().labels();
    expect(labels.get(ctx.messes.a.id)).toEqual({
      _id: ctx.messes.a.id,
      slug: 'main',
      messName: UNCONFIGURED_NAME,
    });
    expect(await directory().label(ctx.messes.b.id)).toEqual({
      _id: ctx.messes.b.id,
      slug: 'mess-b',
      messName: MESS_B_SETUP.messName,
    });
    const nowhere = '00000000-0000-4000-8000-00000000dead';
    expect(await directory().label(nowhere)).toEqual({ _id: nowhere, slug: '', messName: '' });
  });

  it('creates a third mess with its capacity and UPI, leaving A and B as they were', async () => {
    const before = await directory().all();
    const created = await directory().create(ctx.db, {
      slug: 'hostel-7',
      capacity: 120,
      upi: { vpa: 'hostel7@upi', payeeName: 'Hostel 7 Mess' },
    });
    directory().changed();
    cId = created.id;
    expect(created).toMatchObject({
      slug: 'hostel-7',
      capacity: 120,
      upi: { vpa: 'hostel7@upi', payeeName: 'Hostel 7 Mess' },
    });
    expect(created.createdAt).toBeInstanceOf(Date);
    const all = await directory().all();
    expect(all.map((m) => m.slug).sort()).toEqual(['hostel-7', 'main', 'mess-b']);
    expect(all.filter((m) => m.id !== cId)).toEqual(expect.arrayContaining(before));
    expect(before).toHaveLength(2);
    // Its label: unconfigured, the default name.
    expect(await directory().label(cId)).toEqual({ _id: cId, slug: 'hostel-7', messName: UNCONFIGURED_NAME });
  });

  it("refuses a slug taken (B's), a slug or capacity against the table's rules, and writes nothing", async () => {
    expect(await failure(directory().create(ctx.db, { slug: 'mess-b', capacity: null, upi: null }))).toEqual({
      code: '23505',
      unique: 'messes_slug_unique',
    });
    for (const slug of ['Bad_Slug', '-edge', 'x', 'edge-']) {
      expect([slug, await failure(directory().create(ctx.db, { slug, capacity: null, upi: null }))]).toEqual([
        slug,
        { code: '23514', unique: undefined },
      ]);
    }
    for (const capacity of [0, 100_001]) {
      expect(
        await failure(directory().create(ctx.db, { slug: `cap-${capacity}`, capacity, upi: null })),
      ).toEqual({ code: '23514', unique: undefined });
    }
    expect((await directory().all()).map((m) => m.slug).sort()).toEqual(['hostel-7', 'main', 'mess-b']);
  });

  it('changes one mess (slug, capacity, UPI) and no other; an empty change returns the row as it is', async () => {
    const bBefore = await directory().find(ctx.messes.b.id);
    const changed = await directory().update(ctx.db, cId, {
      slug: 'hostel-seven',
      capacity: 2,
      upi: null,
    });
    directory().changed();
    expect([changed?.id, changed?.slug, changed?.capacity, changed?.upi]).toEqual([
      cId,
      'hostel-seven',
      2,
      null,
    ]);
    expect(await directory().find(ctx.messes.b.id)).toEqual(bBefore);
    expect((await directory().find('main'))?.capacity).toBeNull();
    expect(await directory().update(ctx.db, cId, {})).toEqual(changed);
    expect(
      await directory().update(ctx.db, '00000000-0000-4000-8000-000000000abc', { capacity: 5 }),
    ).toBeUndefined();
    // A slug B already has: refused, C unchanged.
    expect(await failure(directory().update(ctx.db, cId, { slug: 'mess-b' }))).toMatchObject({
      code: '23505',
    });
    expect((await directory().find(cId))?.slug).toBe('hostel-seven');
  });

  it('answers from its cache until a change is announced, then reads the row again (labels too)', async () => {
    expect((await directory().find('hostel-seven'))?.capacity).toBe(2);
    await directory().update(ctx.db, cId, { capacity: 3 });
    // Not yet announced: the row as it was found moments ago.
    expect((await directory().find('hostel-seven'))?.capacity).toBe(2);
    expect((await directory().all()).find((m) => m.id === cId)?.capacity).toBe(3);
    directory().changed();
    expect((await directory().find('hostel-seven'))?.capacity).toBe(3);
    await directory().update(ctx.db, cId, { slug: 'hostel-7b' });
    directory().changed();
    expect(await directory().find('hostel-seven')).toBeUndefined();
    expect((await directory().labels()).get(cId)?.slug).toBe('hostel-7b');
  });

  it("locks one mess's row, or several in id order, in the caller's transaction (unknown ids left out)", async () => {
    const unknown = '00000000-0000-4000-8000-000000000abc';
    const { one, many, none, missing } = await inTransaction(ctx.db, async (tx) => ({
      one: await directory().lock(tx, ctx.messes.b.id),
      many: await directory().lockMany(tx, [ctx.messes.b.id, unknown, cId, FIRST_MESS_ID]),
      none: await directory().lockMany(tx, []),
      missing: await directory().lock(tx, unknown),
    }));
    expect([one?.id, one?.slug]).toEqual([ctx.messes.b.id, 'mess-b']);
    expect(many.map((m) => m.id)).toEqual([ctx.messes.b.id, cId, FIRST_MESS_ID].sort());
    expect(none).toEqual([]);
    expect(missing).toBeUndefined();
  });

  it("knows the messes a member was moved out of, from B's trail, whichever mess asks", async () => {
    for (const at of [ctx, inB]) {
      expect(await at.get(PastMesses).belongedTo(mover.id, ctx.messes.a.id)).toBe(true);
      // The mess they are in now is no past mess; nor is any mess to a member never moved.
      expect(await at.get(PastMesses).belongedTo(mover.id, ctx.messes.b.id)).toBe(false);
      expect(await at.get(PastMesses).belongedTo(bStudent.id, ctx.messes.a.id)).toBe(false);
      expect(await at.get(PastMesses).belongedTo(aStudent.id, ctx.messes.b.id)).toBe(false);
    }
    const joined = new Date('2029-12-01T00:00:00Z');
    expect(await ctx.get(PastMesses).periods(mover.id, ctx.messes.b.id, joined)).toEqual([
      { messId: ctx.messes.a.id, from: joined, to: movedAt },
      { messId: ctx.messes.b.id, from: movedAt, to: null },
    ]);
    expect(await inB.get(PastMesses).periods(bStudent.id, ctx.messes.b.id, joined)).toEqual([
      { messId: ctx.messes.b.id, from: joined, to: null },
    ]);
  });

  describe('the mess guard', () => {
    /** The guard's decision for a request to `route` with this query, by `member` (none: no token). */
    const decide = async (
      route: 'ownRecords' | 'staffOnly',
      query: string,
      member: CurrentMember | undefined,
      open = false,
    ) => {
      const request = { query: parseQueryString(query) };
      const context = new ExecutionContextHost([request, {}], Routes, Routes.prototype[route]);
      const state: RequestContext = { requestId: 'medium' };
      await requestContext.run(state, () => ctx.module.get(MessGuard).decide(context, member, open));
      return { messId: state.messId, named: state.messNamed, query: { ...request.query } };
    };
    const refused = async (work: Promise<unknown>) => ctx.refusal(work);

    it("acts in the caller's own mess unless the request names one, and in the first mess with no caller", async () => {
      expect(await decide('staffOnly', 'month=2030-01', bStudent.caller)).toEqual({
        messId: ctx.messes.b.id,
        named: false,
        query: { month: '2030-01' },
      });
      expect(await decide('staffOnly', '', aStudent.caller)).toMatchObject({ messId: ctx.messes.a.id });
      expect(await decide('staffOnly', '', undefined, true)).toMatchObject({ messId: FIRST_MESS_ID });
    });

    it('lets an admin name any mess (taking `mess` out of the query); an unknown mess is 404', async () => {
      expect(await decide('staffOnly', 'mess=MESS-B&limit=5', aAdmin.caller)).toEqual({
        messId: ctx.messes.b.id,
        named: true,
        query: { limit: '5' },
      });
      expect(await refused(decide('staffOnly', 'mess=mess-z', aAdmin.caller))).toEqual({
        status: 404,
        body: expect.objectContaining({ error: MESS_NOT_FOUND }),
      });
      expect((await refused(decide('staffOnly', 'mess=', aAdmin.caller))).status).toBe(404);
      // Repeated: no one mess is named.
      expect((await refused(decide('staffOnly', 'mess=main&mess=mess-b', aAdmin.caller))).status).toBe(404);
    });

    it("refuses a malformed `mess` (400) rather than acting in the caller's own mess", async () => {
      const malformed = await refused(decide('staffOnly', 'mess=%E0%A4', bStudent.caller));
      expect(malformed.status).toBe(400);
      expect(malformed.body).toMatchObject({ details: [expect.objectContaining({ field: 'mess' })] });
    });

    it('refuses a student another mess (403), except their own records in a mess they were moved out of', async () => {
      const moverCaller = { ...mover.caller, messId: ctx.messes.b.id };
      expect(await decide('ownRecords', 'mess=main', moverCaller)).toMatchObject({
        messId: ctx.messes.a.id,
        named: true,
      });
      expect(await refused(decide('staffOnly', 'mess=main', moverCaller))).toEqual({
        status: 403,
        body: { error: 'Forbidden' },
      });
      // B's student never belonged to A; A's student never to B.
      expect((await refused(decide('ownRecords', 'mess=main', bStudent.caller))).status).toBe(403);
      expect((await refused(decide('ownRecords', 'mess=mess-b', aStudent.caller))).status).toBe(403);
      // A public route refuses nobody: B's student acts in A there.
      expect(await decide('staffOnly', 'mess=main', bStudent.caller, true)).toMatchObject({
        messId: ctx.messes.a.id,
      });
    });
  });
});
