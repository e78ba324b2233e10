import { Global, Module } from '@nestjs/common';
import { OutboxRelay } from './outbox-relay';

/** The transactional outbox's relay: hands durable domain events to their listeners after their commit. */
@Global()
@Module({
  providers: [OutboxRelay],
  exports: [OutboxRelay],
})
export class OutboxModule {}
