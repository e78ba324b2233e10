import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2, OnEvent } from '@nestjs/event-emitter';
import type { EventMap, EventName } from './event-map';

/**
 * Publishes a domain event once the write has committed. Fire and forget: listeners run now, and one that throws
 * is logged, never turned into a failure of the request whose write already succeeded. Only a name of `EventMap`
 * with its own payload is accepted.
 */
@Injectable()
export class DomainEventBus {
  private readonly logger = new Logger('DomainEvents');

  constructor(private readonly emitter: EventEmitter2) {}

  publish<K extends EventName>(name: K, payload: EventMap[K]): void {
    try {
      this.emitter.emit(name, payload);
    } catch (error) {
      this.logger.error({ err: error, event: name }, 'A domain event listener failed');
    }
  }
}

/**
 * Marks a method as a listener of the event `name`; the method must accept that event's payload (a method that
 * listens to several events accepts each of their payloads), or the type-check fails.
 */
export function OnDomainEvent<K extends EventName>(name: K) {
  return <T extends (payload: EventMap[K]) => unknown>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<T>,
  ): void => {
    OnEvent(name)(target, key, descriptor);
  };
}
