import { Logger } from '@nestjs/common';
import type { EventEmitter2 } from '@nestjs/event-emitter';

const logger = new Logger('DomainEvents');

/**
 * Publishes a domain event once the write has committed. Fire and forget: listeners run now, and one that throws
 * is logged, never turned into a failure of the request whose write already succeeded.
 */
export function publishDomainEvent<T extends object>(emitter: EventEmitter2, name: string, payload: T): void {
  try {
    emitter.emit(name, payload);
  } catch (error) {
    logger.error({ err: error, event: name }, 'A domain event listener failed');
  }
}
