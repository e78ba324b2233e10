import { Injectable } from '@nestjs/common';
import { eq, sql } from 'drizzle-orm';
import { GroupCommit } from '../../common/concurrency/group-commit';
import { Database, type DbOrTx } from '../../database/database';
import { textArray } from '../../database/sql-arrays';
import { rowsOf } from '../../database/sql-rows';
import {
  gatewayEvents,
  gatewayOrders,
  type GatewayEventOutcome,
  type GatewayEventRow,
  type GatewayOrderRow,
} from './payments.schema';

/** A captured payment as the webhook stores it. */
export type NewGatewayEvent = Pick<
  GatewayEventRow,
  'paymentId' | 'orderId' | 'amountPaise' | 'method' | 'capturedAt' | 'rrn'
> & { payload: unknown };

/** What became of an event: its outcome, and the mess and entry it was recorded in. */
export interface GatewayEventDone {
  paymentId: string;
  outcome: GatewayEventOutcome;
  messId: string | null;
  entryId: string | null;
}

/** How long a claimed batch is held before another replica may take it (the claimer stopped halfway). */
const LEASE_SECONDS = 60;

/** The only code that queries the gateway's inbox (`gateway_events`), and the orders its events name. */
@Injectable()
export class GatewayEventsRepository {
  /** A burst of webhooks is kept by a few statements (and commits), not one each. */
  private readonly inserts = new GroupCommit<NewGatewayEvent>((events) => this.insertMany(events));

  constructor(private readonly database: Database) {}

  /** Stores the event once per payment id; a repeat delivery stores nothing. Resolves once it is committed. */
  insert(event: NewGatewayEvent): Promise<void> {
    return this.inserts.add(event);
  }

  private async insertMany(events: NewGatewayEvent[]): Promise<void> {
    const once = [...new Map(events.map((e) => [e.paymentId, e])).values()];
    await this.database.db.insert(gatewayEvents).values(once).onConflictDoNothing();
  }

  /**
   * Takes up to `limit` events waiting to be recorded, oldest first, for LEASE_SECONDS: events another replica is
   * taking at this moment are skipped, not waited for.
   */
  async claim(limit: number): Promise<GatewayEventRow[]> {
    const result = await this.database.db.execute(sql`
      update gateway_events e set claimed_until = now() + make_interval(secs => ${LEASE_SECONDS})
       where e.payment_id in (
             select payment_id from gateway_events
              where processed_at is null and (claimed_until is null or claimed_until < now())
              order by received_at
              limit ${limit}
                for update skip locked)
      returning e.payment_id as "paymentId", e.order_id as "orderId", e.amount_paise::float8 as "amountPaise",
                e.method, e.captured_at as "capturedAt", e.rrn, e.received_at as "receivedAt"`);
    // Raw rows: timestamps as the driver gives them (a Date, or text from PGlite's raw path).
    type Raw = GatewayEventRow & { capturedAt: string | Date | null; receivedAt: string | Date };
    return rowsOf<Raw>(result).map((r) => ({
      ...r,
      amountPaise: Number(r.amountPaise),
      capturedAt: r.capturedAt === null ? null : new Date(r.capturedAt),
      receivedAt: new Date(r.receivedAt),
    }));
  }

  /** The orders with these gateway ids, in whichever mess each is (the webhook names no mess). */
  async ordersAcrossMesses(gatewayOrderIds: string[]): Promise<GatewayOrderRow[]> {
    if (!gatewayOrderIds.length) return [];
    return this.database.acrossMesses((tx) =>
      tx
        .select()
        .from(gatewayOrders)
        .where(sql`${gatewayOrders.gatewayOrderId} = any(${textArray(gatewayOrderIds)})`),
    );
  }

  /** The events' outcomes, in the transaction that recorded their payments (or on their own for `not-ours`). */
  async done(done: GatewayEventDone[], db: DbOrTx = this.database.db): Promise<void> {
    if (!done.length) return;
    await db.execute(sql`
      update gateway_events e
         set processed_at = now(), claimed_until = null, outcome = d.outcome, mess_id = d.mess_id,
             entry_id = d.entry_id
        from unnest(${textArray(done.map((d) => d.paymentId))}, ${textArray(done.map((d) => d.outcome))},
                    ${textArray(
                      done.map((d) => d.messId),
                      'uuid',
                    )}, ${textArray(
                      done.map((d) => d.entryId),
                      'uuid',
                    )})
             as d(payment_id, outcome, mess_id, entry_id)
       where e.payment_id = d.payment_id`);
  }

  /** One event, as stored (tests, operations). */
  async find(paymentId: string): Promise<GatewayEventRow | undefined> {
    const [row] = await this.database.db
      .select()
      .from(gatewayEvents)
      .where(eq(gatewayEvents.paymentId, paymentId));
    return row;
  }
}
