import { requestContext } from '../context/request-context';

/**
 * The first mess: it exists from the first start (migration 0017 creates it, slug `main`), every record of a
 * database from before extension 2.2 belongs to it, and work outside a request acts in it unless it names another.
 */
export const FIRST_MESS_ID = '00000000-0000-4000-8000-000000000001';

/**
 * The session setting that row-level security reads (`current_setting('app.mess')`): the database layer sets it
 * on the connection to the mess of the code running, before every statement, so no repository passes it.
 */
export const MESS_SETTING = 'app.mess';

/** The role the service's statements run under; its policies show a mess's rows only (migration 0017). */
export const APP_ROLE = 'mess_app';
/** A read-only role that sees every mess: the university's view and admin lists across messes. */
export const READER_ROLE = 'mess_reader';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The mess the running code acts in: the request's (decided once per request), else the first mess. */
export function currentMessId(): string {
  return requestContext.current()?.messId ?? FIRST_MESS_ID;
}

/** The mess the request named with `mess`, or undefined when it named none (lists across messes then show all). */
export function namedMessId(): string | undefined {
  const context = requestContext.current();
  return context?.messNamed ? context.messId : undefined;
}

/**
 * Runs `work` acting in `messId`: inside a request it keeps the request's id for the logs; outside one (schedules,
 * queue workers, command-line tools) it is how work names the mess it is for.
 */
export function inMess<T>(messId: string, work: () => T): T {
  if (!UUID.test(messId)) throw new Error(`not a mess id: ${messId}`);
  const current = requestContext.current();
  return requestContext.run({ requestId: current?.requestId ?? '', ...current, messId }, work);
}

/** The statement that points a connection at a mess; `messId` is checked to be a UUID first, so inlining is safe. */
export function pointAtMessSql(messId: string): string {
  if (!UUID.test(messId)) throw new Error(`not a mess id: ${messId}`);
  return `select set_config('${MESS_SETTING}', '${messId}', false)`;
}
