import { requestContext } from '../context/request-context';

/**
 * The first mess: it exists from the first start (migration 0017 creates it, slug `main`) and every record of a
 * database from before extension 2.2 belongs to it. An unauthenticated request acts in it (the contract); nothing
 * else falls back to it: work that names no mess has none.
 */
export const FIRST_MESS_ID = '00000000-0000-4000-8000-000000000001';

/**
 * The setting that row-level security reads (`current_setting('app.mess')`, with no fallback): the database layer
 * sets it for every statement (or transaction) to the mess of the code running, or to nothing outside one, so no
 * repository passes it and a statement on a mess table outside a mess fails.
 */
export const MESS_SETTING = 'app.mess';

/** The role the service's statements run under; its policies show a mess's rows only (migration 0017). */
export const APP_ROLE = 'mess_app';
/** A read-only role that sees every mess: the university's view and admin lists across messes. */
export const READER_ROLE = 'mess_reader';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Code that acts in a mess ran where no mess was entered: a request before its mess is decided, or a job. */
export class NoMessError extends Error {
  constructor() {
    super('No mess: this work runs outside a mess (a job, listener or tick enters one with inMess)');
    this.name = 'NoMessError';
  }
}

/**
 * The mess the running code acts in: the request's (decided once per request by the mess guard), or the one work
 * outside a request entered with `inMess`. Throws when there is none: nothing acts in a mess it did not name.
 */
export function currentMessId(): string {
  const messId = requestContext.current()?.messId;
  if (!messId) throw new NoMessError();
  return messId;
}

/** The running code's mess, or undefined outside one: for the database layer, which runs such statements with none. */
export function messIdIfAny(): string | undefined {
  return requestContext.current()?.messId || undefined;
}

/** The mess the request named with `mess`, or undefined when it named none (lists across messes then show all). */
export function namedMessId(): string | undefined {
  const context = requestContext.current();
  return context?.messNamed ? context.messId : undefined;
}

/**
 * The one way to act in a mess for work that is not a request (a queue job, a listener, a scheduler tick, a
 * command-line tool): `work` and every statement it runs act in `messId`. Inside a request it keeps the request's
 * id for the logs. Reading across messes is `Database.acrossMesses`, under the reader role.
 */
export function inMess<T>(messId: string, work: () => T): T {
  if (!UUID.test(messId)) throw new Error(`not a mess id: ${messId}`);
  const current = requestContext.current();
  return requestContext.run({ requestId: current?.requestId ?? '', ...current, messId }, () => {
    const result = work();
    // A query builder runs when it is awaited: its `then` is called here, in the mess, not by the caller outside.
    return (isLazy(result) ? Promise.resolve(result) : result) as T;
  });
}

function isLazy(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !(value instanceof Promise) &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** Whether `value` is a mess id (a UUID): a setting built from it can be inlined. */
export function isMessId(value: string): boolean {
  return UUID.test(value);
}
