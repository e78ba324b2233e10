import { Logger } from '@nestjs/common';
import { PgBoss } from 'pg-boss';
import { APP_ROLE } from '../common/tenancy/mess-scope';

/** pg-boss keeps its tables in their own schema, beside the service's. */
export const JOB_QUEUE_SCHEMA = 'pgboss';

/**
 * What the queue's owner grants the service's role on the queue's tables: the service enqueues inside its own
 * transactions, which run as mess_app, and a login that owns nothing (decision 0012) runs the queue with the
 * privileges it inherits from mess_app. Idempotent.
 */
export function jobQueueGrants(): string {
  const schema = JOB_QUEUE_SCHEMA;
  return (
    `grant usage on schema ${schema} to ${APP_ROLE}; ` +
    `grant select, insert, update, delete on all tables in schema ${schema} to ${APP_ROLE}; ` +
    `grant usage, select on all sequences in schema ${schema} to ${APP_ROLE}; ` +
    `alter default privileges in schema ${schema} grant select, insert, update, delete on tables to ${APP_ROLE}`
  );
}

/**
 * Installs or upgrades the job queue's schema as the owner of the tables (`ownerUrl`, DATABASE_MIGRATION_URL) and
 * grants its tables to the service's role: the part of the queue that needs ownership, done with the migrations
 * when the service's own login owns nothing. The queue itself (its name, options and worker) stays the
 * notifications module's, which runs it as the service's login without migrating (decision 0012).
 */
export async function installJobQueueSchema(ownerUrl: string): Promise<void> {
  const boss = new PgBoss({
    connectionString: ownerUrl,
    schema: JOB_QUEUE_SCHEMA,
    migrate: true,
    schedule: false,
    supervise: false,
    max: 2,
    application_name: 'mess-migrate',
  });
  // start() itself throws when the schema cannot be installed; what is emitted comes from its background work.
  boss.on('error', (error: Error) => new Logger('Database').warn(`Job queue schema: ${error.message}`));
  await boss.start();
  try {
    await boss.getDb().executeSql(jobQueueGrants());
  } finally {
    await boss.stop({ graceful: false, close: true });
  }
}
