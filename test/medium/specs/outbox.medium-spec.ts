import { EventEmitter2 } from '@nestjs/event-emitter';
import { eq, sql } from 'drizzle-orm';
import { DomainEventBus } from '../../../src/common/events/domain-event-bus';
import type { PasswordResetEvent } from '../../../src/common/events/event-map';
import { inTransaction } from '../../../src/database/transactions';
import { OutboxRelay } from '../../../src/modules/outbox';
// The table itself, for the test's own reads (the outbox module exports no table).
import { outboxEvents } from '../../../src/modules/outbox/outbox.schema';
import { type MediumContext, type MediumMember, newMedium } from '../medium.factory';

/**
 * The transactional outbox in two messes: a durable event is written with its change (none when the change rolls
 * back), in the event's mess, and handed to its listeners after the commit once; a listener's failure keeps the row
 * pending and it is handed on again. A listener of the spec's stands for notifications (not loaded here). What the
 * outbox does across a killed process: test/e2e/outbox-kill.e2e-spec.ts.
 */
describe('Outbox (medium): two messes', () => {
  let ctx: MediumContext;
  let inB: MediumContext;
  let aMember: MediumMember;
  let bMember: MediumMember;
  const NAME = 'auth.password-reset-requested' as const;
  const heard: PasswordResetEvent[] = [];
  let failNext = 0;
  const listener = async (event: PasswordResetEvent) => {
    if (failNext > 0) {
      failNext -= 1;
      throw new Error('mail server down');
    }
    heard.push(event);
  };

  beforeAll(async () => {
    ctx = await newMedium({ imports: [] });
    inB = ctx.as(ctx.messes.b);
    aMember = await ctx.newMember('student');
    bMember = await inB.newMember('student');
    ctx.module.get(EventEmitter2).on(NAME, listener);
  });
  afterAll(async () => {
    ctx?.module.get(EventEmitter2).off(NAME, listener);
    await ctx?.close();
  });

  const event = (member: MediumMember, key: string) => ({
    userId: member.id,
    messId: member.messId,
    tokenHash: key,
    link: `https://mess.test/reset#${key}`,
    ttlMinutes: 30,
  });
  /** Publishes the event in a transaction of the context's mess; `rollBack`: the transaction then fails. */
  const publish = (at: MediumContext, payload: ReturnType<typeof event>, rollBack = false) =>
    at.inMess(at.messId, () =>
      inTransaction(at.db, async (tx) => {
        await at.module.get(DomainEventBus).publishWithin(tx, NAME, payload);
        if (rollBack) throw new Error('the change failed');
      }),
    );
  /** The outbox rows of the event with this key, as the context's mess sees them. */
  const rows = (at: MediumContext, key: string) =>
    at.inMess(at.messId, () =>
      at.db
        .select()
        .from(outboxEvents)
        .where(sql`${outboxEvents.payload}->>'tokenHash' = ${key}`),
    );
  const relay = () => ctx.module.get(OutboxRelay);

  it('writes the event with its change and hands it on once after the commit, in its mess', async () => {
    await publish(inB, event(bMember, 'b-1'));
    await relay().idle();
    expect(heard.filter((e) => e.tokenHash === 'b-1')).toEqual([event(bMember, 'b-1')]);
    const [row] = await rows(inB, 'b-1');
    expect(row).toMatchObject({ messId: ctx.messes.b.id, name: NAME, attempts: 1, lastError: null });
    expect(row.doneAt).toBeInstanceOf(Date);
    // a sweep of every mess finds nothing left to hand on
    await relay().sweep(false);
    await relay().idle();
    expect(heard.filter((e) => e.tokenHash === 'b-1')).toHaveLength(1);
    // A does not see B's row
    expect(await rows(ctx, 'b-1')).toEqual([]);
  });

  it('leaves no row and tells nobody when the transaction rolls back', async () => {
    await expect(publish(ctx, event(aMember, 'a-rolled-back'), true)).rejects.toThrow('the change failed');
    await relay().sweep(false);
    await relay().idle();
    expect(await rows(ctx, 'a-rolled-back')).toEqual([]);
    expect(heard.map((e) => e.tokenHash)).not.toContain('a-rolled-back');
  });

  it('keeps an event whose listener failed, with the failure, and hands it on again once its wait is over', async () => {
    failNext = 1;
    await publish(ctx, event(aMember, 'a-retry'));
    await relay().idle();
    expect(heard.map((e) => e.tokenHash)).not.toContain('a-retry');
    const [failed] = await rows(ctx, 'a-retry');
    expect(failed).toMatchObject({
      messId: ctx.messes.a.id,
      attempts: 1,
      lastError: 'mail server down',
      doneAt: null,
    });
    expect(failed.claimedUntil).toBeInstanceOf(Date);
    // within its wait, a sweep leaves it alone
    await relay().sweep(false);
    await relay().idle();
    expect(heard.map((e) => e.tokenHash)).not.toContain('a-retry');
    // the wait over (as if 5 s had passed), the next sweep hands it on, once
    await ctx.inMess(ctx.messes.a.id, () =>
      ctx.db.update(outboxEvents).set({ claimedUntil: null }).where(eq(outboxEvents.id, failed.id)),
    );
    await relay().sweep(false);
    await relay().idle();
    expect(heard.filter((e) => e.tokenHash === 'a-retry')).toEqual([event(aMember, 'a-retry')]);
    const [done] = await rows(ctx, 'a-retry');
    expect(done).toMatchObject({ attempts: 2, lastError: null });
    expect(done.doneAt).toBeInstanceOf(Date);
  });
});
