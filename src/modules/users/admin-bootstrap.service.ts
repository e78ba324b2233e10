import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AppConfig } from '../../config/app-config';
import { retryWhileUnavailable } from '../../database/start-up-retry';
import { CredentialsService } from './credentials.service';
import { UsersService } from './users.service';

export const DEV_ADMIN_EMAIL = 'admin@mess.local';

/**
 * A fresh installation needs someone who can approve members. ADMIN_EMAIL/ADMIN_PASSWORD create that admin;
 * outside production, with neither set, a local admin with a random password is made and the password is
 * printed once.
 */
@Injectable()
export class AdminBootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('AdminBootstrap');

  constructor(
    private readonly users: UsersService,
    private readonly credentials: CredentialsService,
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const retry = { deadlineMs: this.config.db.startRetryMs, logger: this.logger };
    await retryWhileUnavailable('Looking for the first admin', () => this.ensureFirstAdmin(), retry);
  }

  private async ensureFirstAdmin(): Promise<void> {
    if (await this.users.hasApprovedAdmin()) return;
    const { email, password } = this.config.admin;
    if (email && password) {
      await this.credentials.ensureAdmin(email, password);
      this.logger.log(`Created the first admin from ADMIN_EMAIL (${email})`);
      return;
    }
    if (this.config.env === 'production') {
      this.logger.warn('No admin exists. Set ADMIN_EMAIL and ADMIN_PASSWORD, or run `npm run admin:create`.');
      return;
    }
    const generated = randomBytes(12).toString('base64url');
    await this.credentials.ensureAdmin(DEV_ADMIN_EMAIL, generated);
    // Printed once on purpose: this is the only way to learn the generated password.
    process.stdout.write(
      `\n  No admin existed, so one was created for this local installation:\n` +
        `    email:    ${DEV_ADMIN_EMAIL}\n    password: ${generated}\n` +
        `  It is shown only now. Change it with POST /api/auth/password.\n\n`,
    );
  }
}
