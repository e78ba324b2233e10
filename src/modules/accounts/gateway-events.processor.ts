import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import { Outages } from '../../common/outages/outages';
import { inEveryMess } from '../../common/tenancy/every-mess';
import { localParts } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import type { DbOrTx } from '../../database/database';
import { AccountsRepository } from './accounts.repository';
import type { AccountEntryRow, PaymentMethod } from './accounts.schema';
import { GatewayEventsRepository, type GatewayEventDone } from './gateway-events.repository';
import { outsidePayment, PartlyRecorded, PaymentRecorder, type OutsidePayment } from './payment-recorder';
import { PaymentsRepository } from './payments.repository';
import type { GatewayEventRow, GatewayOrderRow } from './payments.schema';

/** Events taken from the inbox at a time: a burst of webhooks is recorded in a few transactions, not one each. */
const BATCH = 500;
/**
 * Recording starts once the webhooks have been quiet this long, or at the latest MAX_WAIT_MS after the first one
 * waiting: during a burst the service answers the gateway first and records in a few large batches between.
 */
const QUIET_MS = 25;
const MAX_WAIT_MS = 1000;

interface Pending {
  event: GatewayEventRow;
  order: GatewayOrderRow;
  payment: OutsidePayment;
}

/**
 * Records the gateway's inbox (`gateway_events`): every captured payment the webhook stored, once, in its order's
 * mess, to its order's member. The webhook starts it after a quiet moment (a burst is recorded in a few batches
 * while the gateway gets its answers at once); a sweep every 30 seconds takes whatever a stopped replica left (the
 * claim's lease ran out). Payments are recorded through PaymentRecorder, whose unique references
 * decide between repeats (the same payment id, or a UPI reference a statement recorded first), whatever the order.
 */
@Injectable()
export class GatewayEventsProcessor implements OnModuleDestroy {
  private readonly logger = new Logger('GatewayEvents');
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /** While events wait for a quiet moment: when the first arrived, and the timer that starts the run. */
  private waitingSince: number | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly inbox: GatewayEventsRepository,
    private readonly payments: PaymentsRepository,
    private readonly accounts: AccountsRepository,
    private readonly recorder: PaymentRecorder,
    private readonly events: DomainEventBus,
    private readonly config: AppConfig,
    private readonly outages: Outages,
  ) {}

  /**
   * A webhook kept an event: records it after a quiet moment (QUIET_MS without another, MAX_WAIT_MS at most), with
   * whatever else arrives meanwhile.
   */
  soon(): void {
    if (this.stopped) return;
    const now = Date.now();
    this.waitingSince ??= now;
    if (this.timer) clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(QUIET_MS, this.waitingSince + MAX_WAIT_MS - now));
    this.timer = setTimeout(() => this.kick(), wait);
  }

  /** Records what the inbox holds, now or (when a run is under way) right after it: one run at a time. */
  kick(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.waitingSince = null;
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.drain();
      } while (this.again && !this.stopped);
    })()
      .catch((error: unknown) => {
        // During an outage the events wait in the inbox; the sweep records them once the database is back.
        this.outages.jobFailed(
          error,
          'the gateway inbox',
          this.logger,
          'Recording gateway payments failed; the sweep retries when the lease ends',
        );
      })
      .finally(() => {
        this.running = null;
      });
  }

  @Cron(CronExpression.EVERY_30_SECONDS, { name: 'gateway-events' })
  sweep(): void {
    this.kick();
  }

  /** Records what waits at once and resolves when nothing is being recorded (tests wait on it after deliveries). */
  async idle(): Promise<void> {
    if (this.timer) this.kick();
    while (this.running) await this.running;
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.stopped = true;
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    while (!this.stopped) {
      const events = await this.inbox.claim(BATCH);
      if (!events.length) return;
      await this.process(events);
    }
  }

  private async process(events: GatewayEventRow[]): Promise<void> {
    const orders = new Map(
      (await this.inbox.ordersAcrossMesses([...new Set(events.map((e) => e.orderId))])).map((o) => [
        o.gatewayOrderId,
        o,
      ]),
    );
    const notOurs = events.filter((e) => !orders.has(e.orderId));
    for (const e of notOurs)
      this.logger.warn(
        { paymentId: e.paymentId, orderId: e.orderId },
        'payment.captured for an order that is not ours: recorded nothing',
      );
    await this.inbox.done(
      notOurs.map((e) => ({ paymentId: e.paymentId, outcome: 'not-ours', messId: null, entryId: null })),
    );
    const byMess = new Map<string, Pending[]>();
    for (const event of events) {
      const order = orders.get(event.orderId);
      if (!order) continue;
      const list = byMess.get(order.messId) ?? [];
      list.push({ event, order, payment: this.paymentOf(event, order) });
      byMess.set(order.messId, list);
    }
    // A mess whose events could not be recorded keeps them claimed until the lease ends (the sweep takes them
    // again); the other messes' payments are recorded meanwhile.
    await inEveryMess(
      byMess.keys(),
      'the gateway inbox',
      (messId) => this.recordInMess(byMess.get(messId)!),
      {
        outages: this.outages,
        logger: this.logger,
        message: 'Recording gateway payments failed in a mess; the sweep retries when the lease ends',
      },
    );
  }

  /** One transaction for the mess's events; when one of them was recorded already by another way, one at a time. */
  private async recordInMess(pending: Pending[]): Promise<void> {
    let recorded: AccountEntryRow[];
    try {
      recorded = await this.payments.transaction((tx) => this.record(tx, pending));
    } catch (error) {
      if (!(error instanceof PartlyRecorded)) throw error;
      recorded = [];
      for (const one of pending) {
        const entries = await this.payments
          .transaction((tx) => this.record(tx, [one]))
          .catch(async (e: unknown) => {
            if (!(e instanceof PartlyRecorded)) throw e;
            await this.inbox.done([this.outcome(one, undefined)]);
            return [];
          });
        recorded.push(...entries);
      }
    }
    if (!recorded.length) return;
    this.logger.log({ recorded: recorded.length, of: pending.length }, 'Gateway payments recorded');
  }

  /** Records what is new, marks the orders paid and every event done, and promises the receipts, in `tx`. */
  private async record(tx: DbOrTx, pending: Pending[]): Promise<AccountEntryRow[]> {
    const entries = await this.recorder.recordMany(
      tx,
      pending.map((p) => p.payment),
    );
    const byId = new Map(entries.map((e) => [e.id, e]));
    await this.payments.markOrdersPaid(
      tx,
      pending.filter((p) => byId.has(p.payment.entry.id)).map((p) => p.order.id),
    );
    await this.inbox.done(
      pending.map((p) => this.outcome(p, byId.get(p.payment.entry.id))),
      tx,
    );
    // The receipts, promised with the payments (the outbox); the member pays, so the member is the actor.
    await this.recorder.promiseReceipts(tx, entries, (entry) => entry.userId);
    return entries;
  }

  private outcome(p: Pending, entry: AccountEntryRow | undefined): GatewayEventDone {
    return {
      paymentId: p.event.paymentId,
      outcome: entry ? 'recorded' : 'already-recorded',
      messId: p.order.messId,
      entryId: entry?.id ?? null,
    };
  }

  /** The payment a captured event records: the captured amount to the order's member, dated the capture day. */
  private paymentOf(event: GatewayEventRow, order: GatewayOrderRow): OutsidePayment {
    const date = localParts(event.capturedAt ?? event.receivedAt, this.config.messTimezone).date;
    return outsidePayment({
      userId: order.userId,
      amountPaise: event.amountPaise,
      date,
      method: gatewayMethod(event.method),
      reference: event.paymentId.slice(0, 100),
      source: 'gateway',
      sourceId: event.paymentId,
      references: [event.paymentId, ...(event.rrn ? [event.rrn] : [])],
      actorId: null,
    });
  }
}

function gatewayMethod(method: string | null): PaymentMethod {
  if (method === 'upi' || method === 'card') return method;
  if (method === 'netbanking') return 'bank';
  return 'other';
}
