import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2, OnEvent } from '@nestjs/event-emitter';
import type { DbOrTx } from '../../database/database';
import { afterCommit } from '../../database/transactions';
import { currentMessId, inMess } from '../tenancy/mess-scope';
import {
  type DurableEventName,
  type EventMap,
  type EventName,
  type EventPayloads,
  isDurableEvent,
} from './event-map';

/**
 * Publishes domain events. Only a name of `EventMap` with its own payload is accepted; the payload names its mess,
 * by default the one the publisher acts in (there is none outside a mess: publishing there throws).
 *
 * - `publish(name, payload)`, once the write has committed, for an event whose loss costs nothing lasting (cache
 *   invalidation): fire and forget; a listener that throws is logged, never turned into a failure of the request.
 * - `publishWithin(tx, name, payload)`, inside the change's transaction, for a durable event (one that promises a
 *   message): the event is written to the outbox with the change, so it exists exactly when the change does, and
 *   the relay (`OutboxRelay`) hands it to its listeners after the commit, at least once (decision 0005).
 */
/** Where durable events are written (the outbox module's table: `OutboxRelay` registers itself at construction). */
export interface OutboxStore {
  /** Writes the event in `tx`, in the event's mess, leaving `tx` acting in the mess it acted in before. */
  write(tx: DbOrTx, event: { messId: string; name: string; payload: object }): Promise<void>;
}

@Injectable()
export class DomainEventBus {
  private readonly logger = new Logger('DomainEvents');
  private readonly committedListeners = new Set<(messId: string) => void>();
  private outbox?: OutboxStore;

  constructor(private readonly emitter: EventEmitter2) {}

  publish<K extends Exclude<EventName, DurableEventName>>(
    name: K,
    payload: EventPayloads[K] & { messId?: string },
  ): void {
    const event = { ...payload, messId: payload.messId ?? currentMessId() } as EventMap[K];
    try {
      this.emitter.emit(name, event);
    } catch (error) {
      this.logger.error({ err: error, event: name }, 'A domain event listener failed');
    }
  }

  /**
   * Writes the durable event into the outbox in `tx`, the transaction of the change that promises it: it commits
   * or rolls back with the change, and a retried transaction writes it once (the failed attempt's row went with
   * it). Once `tx` has committed (when `inTransaction` opened it) the relay is woken in this process; a sweep on
   * every replica takes whatever it missed. The row is written in the payload's mess (a member event may name
   * another than the caller's); the transaction then acts in the mess it acted in before.
   */
  async publishWithin<K extends DurableEventName>(
    tx: DbOrTx,
    name: K,
    payload: EventPayloads[K] & { messId?: string },
  ): Promise<void> {
    if (!this.outbox) throw new Error('no outbox: the OutboxModule is not loaded');
    const messId = payload.messId ?? currentMessId();
    const event = { ...payload, messId } as EventMap[K];
    await this.outbox.write(tx, { messId, name, payload: event });
    afterCommit(tx, () => {
      // The in-process listeners (`@OnCommitted`: caches) now, as `publish` would; the durable ones by the relay.
      try {
        this.emitter.emit(committedName(name), event);
      } catch (error) {
        this.logger.error({ err: error, event: name }, 'A domain event listener failed');
      }
      for (const listener of this.committedListeners) listener(messId);
    });
  }

  /** The outbox's table (registered once by the outbox module). */
  useOutbox(store: OutboxStore): void {
    this.outbox = store;
  }

  /** Calls `listener` with the mess of each durable event once its transaction has committed (the relay's wake). */
  onCommitted(listener: (messId: string) => void): () => void {
    this.committedListeners.add(listener);
    return () => this.committedListeners.delete(listener);
  }

  /**
   * Hands a durable event to every listener of its name and resolves when all have succeeded; rejects with the
   * first failure (the relay hands it on again later). Listeners run in the event's mess.
   */
  async deliver(name: string, payload: unknown): Promise<void> {
    if (!isDurableEvent(name)) throw new Error(`not a durable event: ${name}`);
    await this.emitter.emitAsync(name, payload);
  }
}

/**
 * Marks a method as a listener of the event `name`; the method must accept that event's payload (a method that
 * listens to several events accepts each of their payloads), or the type-check fails. It runs in the event's mess
 * (`inMess`), wherever it was published from: a listener never acts in a mess it was not told. A listener of a
 * durable event returns its work's promise: a failure is not swallowed but makes the relay hand the event on again.
 */
export function OnDomainEvent<K extends EventName>(name: K) {
  return listenInEventMess<K>(name, { suppressErrors: !isDurableEvent(name) });
}

/**
 * The decorator both listener kinds share: the method is wrapped once to run in the event's mess (`inMess`), then
 * registered with the emitter under `emitted` (the event's name, or its at-commit name).
 */
function listenInEventMess<K extends EventName>(emitted: string, options?: { suppressErrors: boolean }) {
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
    OnEvent(emitted, options)(target, key, descriptor);
  };
}

/** The in-process name under which a durable event is emitted once at its commit (for `@OnCommitted`). */
const committedName = (name: DurableEventName) => `${name}:committed`;

/**
 * Marks a method as an in-process listener of the durable event `name`, called once right after the commit in the
 * process that wrote it, fire and forget, as a `publish`ed event's listener is (decision 0005): for a cache, whose
 * staleness is bounded by time, so that it is dropped before the writer answers. A crash may lose the call; the
 * durable listeners (`@OnDomainEvent`) hear the event through the outbox. Runs in the event's mess.
 */
export function OnCommitted<K extends DurableEventName>(name: K) {
  return listenInEventMess<K>(committedName(name));
}
