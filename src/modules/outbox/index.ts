export { OutboxModule } from './outbox.module';
export { OutboxRelay, OUTBOX_CLAIM_SECONDS } from './outbox-relay';
export { type OutboxEventRow } from './outbox.schema';
