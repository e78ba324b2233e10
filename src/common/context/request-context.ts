import { AsyncLocalStorage } from 'node:async_hooks';

/** What the code running for one HTTP request may know about it without being handed the request. */
export interface RequestContext {
  /** The id Fastify gave the request (a well-formed `X-Request-Id` from the caller, or a new UUID): the logs' id. */
  requestId: string;
  /**
   * The mess the request acts in, decided once by the mess guard (the `mess` parameter, the caller's own mess, or
   * for a public route without a caller the first mess); the database layer scopes every statement to it. Unset
   * until then: no mess, so a statement on a mess table fails and `currentMessId()` throws `NoMessError`
   * (decision 0008, sealed by default).
   */
  messId?: string;
  /** Whether the request named its mess (`mess`): lists across messes (admin's users) then filter by it. */
  messNamed?: boolean;
  /** The route's path parameters as sent (`:date`, `:mealType`): a body's checks name a bad one beside its fields. */
  path?: Readonly<Record<string, string>>;
  /** What must be done before the answer is sent (`answerAfter`): the other replicas confirming a change. */
  answerAfter?: Promise<unknown>[];
}

const storage = new AsyncLocalStorage<RequestContext>();

/**
 * The request a piece of code runs for, carried by AsyncLocalStorage so services (the audit trail) can read it
 * without taking the request as a parameter or becoming request-scoped providers. Outside a request (start-up,
 * schedules, command-line tools) there is none.
 */
export const requestContext = {
  run<T>(context: RequestContext, work: () => T): T {
    return storage.run(context, work);
  },
  current(): RequestContext | undefined {
    return storage.getStore();
  },
  /**
   * The current request answers only once `work` has settled (its outcome does not change the answer): a change
   * that must hold on every replica "from that moment" is acknowledged after they confirmed it. Outside a request
   * (a schedule) nothing waits.
   */
  answerAfter(work: Promise<unknown>): void {
    storage.getStore()?.answerAfter?.push(work);
  },
  /** The current request's id; null outside a request. */
  requestId(): string | null {
    return storage.getStore()?.requestId || null;
  },
};
