import { sql } from 'drizzle-orm';
import { Client } from 'pg';
import type { Db } from '../../database/database';
import { isDatabaseUnavailable } from '../errors/database-errors';
import { failureReason, Outages } from '../outages/outages';
import { CacheInvalidation, RECONNECT_MS } from './cache-invalidation';

/** LISTEN on a connection of its own (outside the pool), NOTIFY through the pool. */
export class PostgresCacheInvalidation extends CacheInvalidation {
  static readonly CHANNEL = 'mess_cache_invalidation';
  readonly transport = 'postgres' as const;
  private listener?: Client;
  private stopped = false;
  private retry?: NodeJS.Timeout;

  constructor(
    private readonly url: string,
    private readonly db: Db,
    private readonly outages = new Outages(),
  ) {
    super();
  }

  override async onModuleInit(): Promise<void> {
    await this.listen(false);
    this.startBeating();
  }

  private async listen(afterGap: boolean): Promise<void> {
    if (this.stopped) return;
    const client = new Client({ connectionString: this.url, application_name: 'mess-cache-invalidation' });
    const lost = () => {
      if (this.listener !== client) return;
      this.listener = undefined;
      client.end().catch(() => undefined);
      this.scheduleRetry();
    };
    client.on('error', (error: Error) => {
      this.outages.down('database', failureReason(error), 'cache invalidation');
      lost();
    });
    client.on('end', lost);
    client.on('notification', (message) => {
      if (message.payload) this.receive(message.payload);
    });
    try {
      this.listener = client;
      await client.connect();
      await client.query(`listen ${PostgresCacheInvalidation.CHANNEL}`);
      this.outages.up('database');
      if (afterGap) this.missedSome();
    } catch (error) {
      this.outages.down('database', failureReason(error), 'cache invalidation');
      lost();
    }
  }

  private scheduleRetry(): void {
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.listen(true);
    }, RECONNECT_MS);
    this.retry.unref();
  }

  protected async send(payload: string): Promise<void> {
    await this.db.execute(sql`select pg_notify(${PostgresCacheInvalidation.CHANNEL}, ${payload})`);
  }

  /**
   * On the listening connection itself, not through the pool: a heartbeat then never queues behind the requests'
   * statements at a busy moment (which would lapse the lease), and hearing it back proves that very connection.
   */
  protected override async sendBeat(payload: string): Promise<void> {
    const listener = this.listener;
    if (!listener) throw new Error('not listening');
    await listener.query('select pg_notify($1, $2)', [PostgresCacheInvalidation.CHANNEL, payload]);
  }

  protected override sendFailed(error: unknown, topic: string): void {
    if (isDatabaseUnavailable(error))
      this.outages.down('database', failureReason(error), 'cache invalidation');
    else super.sendFailed(error, topic);
  }

  override async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
  }
}
