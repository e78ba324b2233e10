import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2, OnEvent } from '@nestjs/event-emitter';
import { currentMessId, inMess } from '../tenancy/mess-scope';
import type { EventMap, EventName, EventPayloads } from './event-map';

/**
 * Publishes a domain event once the write has committed. Fire and forget: listeners run now, and one that throws
 * is logged, never turned into a failure of the request whose write already succeeded. Only a name of `EventMap`
 * with its own payload is accepted; the payload names its mess, by default the one the publisher acts in (there is
 * none outside a mess: publishing there throws).
 */
@Injectable()
export class DomainEventBus {
  private readonly logger = new Logger('DomainEvents');

  constructor(private readonly emitter: EventEmitter2) {}

  publish<K extends EventName>(name: K, payload: EventPayloads[K] & { messId?: string }): void {
    const event = { ...payload, messId: payload.messId ?? currentMessId() } as EventMap[K];
    try {
      this.emitter.emit(name, event);
    } catch (error) {
      this.logger.error({ err: error, event: name }, 'A domain event listener failed');
    }
  }
}

/**
 * Marks a method as a listener of the event `name`; the method must accept that event's payload (a method that
 * listens to several events accepts each of their payloads), or the type-check fails. It runs in the event's mess
 * (`inMess`), wherever it was published from: a listener never acts in a mess it was not told.
 */
export function OnDomainEvent<K extends EventName>(name: K) {
  return <T extends (payload: EventMap[K]) => unknown>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<T>,
  ): void => {
    const listener = descriptor.value;
    if (listener && !(listener as { inEventMess?: boolean }).inEventMess) {
      const entering = function (this: unknown, payload: EventMap[K]) {
        return inMess(payload.messId, () => listener.call(this, payload));
      };
      Object.defineProperty(entering, 'name', { value: listener.name });
      (entering as { inEventMess?: boolean }).inEventMess = true;
      descriptor.value = entering as unknown as T;
    }
    OnEvent(name)(target, key, descriptor);
  };
}
