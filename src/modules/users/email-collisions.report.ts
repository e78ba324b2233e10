import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { retryWhileUnavailable } from '../../database/start-up-retry';
import { UsersRepository } from './users.repository';

/**
 * Says at every start which accounts could not take their normalized address because another account has it
 * (migration 0016 kept both rather than merging two people's history): an admin decides, e.g. by deleting the
 * look-alike or changing its address. Ids only: addresses are personal data and stay out of the logs.
 */
@Injectable()
export class EmailCollisionReport implements OnApplicationBootstrap {
  private readonly logger = new Logger('Accounts');

  constructor(
    private readonly users: UsersRepository,
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const collisions = await retryWhileUnavailable('Reading email collisions', () => this.users.emailCollisions(), {
      deadlineMs: this.config.db.startRetryMs,
      logger: this.logger,
    });
    if (!collisions.length) return;
    this.logger.warn(
      { collisions },
      `${collisions.length} account(s) kept an address that another account holds once spelled the one way ` +
        'addresses are now stored (table email_collisions): an admin should resolve each',
    );
  }
}
