import { inTransaction } from '../../../src/database/transactions';
import {
  type AuditEntry,
  type AuditPageFilter,
  AuditTrail,
  AuditTrailModule,
} from '../../../src/modules/audit-trail';
import { type MediumContext, type MediumMember, newMedium } from '../medium.factory';

/**
 * The audit trail's store in two messes: a change is recorded in the transaction (and mess) it is made in, so A's
 * page, member export and counts never hold B's rows; one read (`everyMess`) spans the messes on purpose; a snapshot
 * that copies a personal value is refused. Through the audit module's list: audit.medium-spec.ts.
 */
describe('Audit trail (medium): two messes', () => {
  let ctx: MediumContext;
  let inB: MediumContext;
  let aAdmin: MediumMember;
  let bMember: MediumMember;
  const MONTH_ID = '2030-01';

  beforeAll(async () => {
    ctx = await newMedium({ imports: [AuditTrailModule] });
    inB = ctx.as(ctx.messes.b);
    aAdmin = await ctx.newMember('admin');
    bMember = await inB.newMember('student');
    await record(inB, {
      actorId: bMember.id,
      action: 'closed',
      entity: 'month',
      entityId: MONTH_ID,
      after: { b: 1 },
    });
    await record(ctx, {
      actorId: aAdmin.id,
      action: 'closed',
      entity: 'month',
      entityId: MONTH_ID,
      after: { a: 1 },
    });
  });
  afterAll(() => ctx?.close());

  /** One change's audit row, in a transaction of the context's mess; `fail`: the change then rolls back. */
  async function record(at: MediumContext, entry: AuditEntry, fail = false): Promise<void> {
    await at.inMess(at.messId, () =>
      inTransaction(at.db, async (tx) => {
        await at.module.get(AuditTrail).record(tx, entry);
        if (fail) throw new Error('the change failed');
      }),
    );
  }
  const page = (at: MediumContext, filter: Partial<AuditPageFilter> = {}) =>
    at.get(AuditTrail).page({ limit: 50, offset: 0, ...filter });

  it("keeps each mess's rows in its own trail", async () => {
    const a = await page(ctx, { entity: 'month', entityId: MONTH_ID });
    expect(a.rows.map((r) => [r.messId, r.actorId, r.after])).toEqual([
      [ctx.messes.a.id, aAdmin.id, { a: 1 }],
    ]);
    const b = await page(inB, { entity: 'month', entityId: MONTH_ID });
    expect(b.rows.map((r) => [r.messId, r.actorId, r.after])).toEqual([
      [ctx.messes.b.id, bMember.id, { b: 1 }],
    ]);
    expect(await page(ctx, { actorId: bMember.id })).toEqual({ rows: [], total: 0 });
  });

  it('exports the rows about a member only from the mess it runs in', async () => {
    // a row about B's member in each mess (as a member moved from A to B leaves behind)
    await record(inB, {
      actorId: bMember.id,
      action: 'created',
      entity: 'extra',
      entityId: MONTH_ID,
      after: { userId: bMember.id, quantity: 1 },
    });
    await record(ctx, {
      actorId: aAdmin.id,
      action: 'created',
      entity: 'extra',
      entityId: MONTH_ID,
      after: { userId: bMember.id, quantity: 2 },
    });
    const inOwn = await inB.get(AuditTrail).memberPage(bMember.id);
    expect(inOwn.records.map((r) => [r.messId, r.after])).toEqual([
      [ctx.messes.b.id, { userId: bMember.id, quantity: 1 }],
    ]);
    expect(inOwn.next).toBeUndefined();
    const inA = await ctx.get(AuditTrail).memberPage(bMember.id);
    expect(inA.records.map((r) => [r.messId, r.after])).toEqual([
      [ctx.messes.a.id, { userId: bMember.id, quantity: 2 }],
    ]);
  });

  it('reads one action on one record in every mess, oldest first', async () => {
    const everywhere = await ctx
      .get(AuditTrail)
      .everyMess({ entity: 'month', entityId: MONTH_ID, action: 'closed' });
    expect(everywhere.map((r) => [r.messId, r.after])).toEqual([
      [ctx.messes.b.id, { b: 1 }],
      [ctx.messes.a.id, { a: 1 }],
    ]);
  });

  it('records nothing for a change that rolls back', async () => {
    await expect(
      record(ctx, { actorId: aAdmin.id, action: 'reopened', entity: 'month', entityId: MONTH_ID }, true),
    ).rejects.toThrow('the change failed');
    const rows = await page(ctx, { entity: 'month', entityId: MONTH_ID });
    expect(rows.rows.map((r) => r.action)).toEqual(['closed']);
  });

  it('refuses a snapshot that copies a personal value, and writes nothing', async () => {
    await expect(
      record(ctx, {
        actorId: aAdmin.id,
        action: 'changed',
        entity: 'user',
        entityId: aAdmin.id,
        after: { fullName: 'Anu Admin', role: 'admin' },
      }),
    ).rejects.toThrow(/copies a personal value: fullName/);
    expect(await page(ctx, { entity: 'user', entityId: aAdmin.id })).toEqual({ rows: [], total: 0 });
  });
});
