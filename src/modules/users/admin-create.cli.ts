// `npm run admin:create -- --email a@b.c [--password …] [--name "…"]`: creates an approved admin, or promotes an
// existing account and resets its password. Reads ADMIN_EMAIL/ADMIN_PASSWORD when the flags are absent.
// The embedded database allows one process at a time: stop the service first, or point DATABASE_URL at the server.
import { DomainEventBus } from '../../common/events/domain-event-bus';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../config/app-config';
import { openDatabase } from '../../database/open-database';
import { AuditTrail } from '../audit-trail';
import { UsersRepository } from './users.repository';
import { CredentialsService } from './credentials.service';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' } },
  });
  const config = loadConfig();
  const email = values.email ?? config.admin.email;
  if (!email || !/^[^@\s]+@[^@\s]+$/.test(email)) {
    throw new Error('Give the admin email with --email (or ADMIN_EMAIL).');
  }
  const generated = !(values.password ?? config.admin.password);
  const password = values.password ?? config.admin.password ?? randomBytes(12).toString('base64url');
  if (password.length < 8 || Buffer.byteLength(password) > 72) {
    throw new Error('The password must be 8 to 72 characters long.');
  }
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    directUrl: config.directUrl,
    migrationUrl: config.migrationUrl,
    dataDir: config.dataDir,
  });
  try {
    await database.migrate();
    const audit = AuditTrail.over(database);
    const credentials = new CredentialsService(
      new UsersRepository(database),
      config,
      new DomainEventBus(new EventEmitter2()),
      audit,
    );
    const { user, created } = await credentials.ensureAdmin(email, password, values.name ?? 'Mess Admin');
    console.log(`${created ? 'Created' : 'Promoted'} admin ${user.email} (${user.id}).`);
    if (generated) console.log(`Password: ${password}  (shown once)`);
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
