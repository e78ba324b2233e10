import type { FastifyInstance, FastifyReply } from 'fastify';
import { BUSY, WorkLimiter, WorkQueueTimeoutError } from '../concurrency/work-limiter';

/** Answered whatever the load: the liveness probe, the metrics scrape and the docs touch no database. */
const ALWAYS_ADMITTED = /^\/api\/(live|metrics\/prometheus|docs)(\/|\?|$|\.)/;

/**
 * Routes that spend their time hashing a password, which their own limiter bounds (BCRYPT_CONCURRENCY, with its
 * deadline and 503): holding a turn here while they wait for a core would shut the reads out during a login storm.
 */
export const HASHING_ROUTES: ReadonlySet<string> = new Set([
  'POST /api/auth/login',
  'POST /api/auth/register',
  'POST /api/auth/password',
  'POST /api/auth/password/reset',
]);

/** How often the stall clock ticks: the resolution of "how long has the event loop been busy". */
const TICK_MS = 10;

/**
 * Admission in front of the embedded engine's single connection, in two parts:
 *
 * - PGlite runs PostgreSQL inside this thread, so a request's statements and everything around them run to the end
 *   without giving the event loop back, and 200 clients' requests wait unread in the socket buffers rather than
 *   anywhere this code can count them. A timer that should tick every 10 ms measures that: when it last ticked
 *   longer ago than `maxWaitMs` and more than `concurrency` requests were read since, the loop has been busy that
 *   long with a backlog of requests, and the request now read is answered 503 at once (a tenth of a
 *   millisecond, against several to serve it), so the backlog drains and the requests that are served are served
 *   within a bound instead of after 10 s.
 * - Requests that do give the loop back while they wait (bcrypt, the job queue) are at most
 *   `limiter.concurrency` at once; the rest wait in arrival order, and one that would wait longer than the
 *   limiter's deadline, or finds its queue full, is answered 503 too.
 *
 * Either way the answer is `The service is busy; try again shortly` with Retry-After, before the body is read.
 * (The server engine has a pool and its checkout deadline for the same purpose.)
 */
export function registerAdmission(fastify: FastifyInstance, limiter: WorkLimiter): void {
  let lastTick = performance.now();
  /** Requests read since the clock last ticked: one client's request after a long task is no backlog. */
  let arrivals = 0;
  const ticker = setInterval(() => {
    lastTick = performance.now();
    arrivals = 0;
  }, TICK_MS);
  ticker.unref();
  fastify.addHook('onClose', (_instance, done) => {
    clearInterval(ticker);
    done();
  });
  const refuse = (reply: FastifyReply, retryAfter: number) =>
    void reply.code(503).header('retry-after', String(retryAfter)).send({ success: false, error: BUSY });

  fastify.addHook('onRequest', (request, reply, done) => {
    if (ALWAYS_ADMITTED.test(request.url)) return done();
    if (HASHING_ROUTES.has(`${request.method} ${request.routeOptions.url}`)) return done();
    arrivals += 1;
    if (arrivals > limiter.concurrency && performance.now() - lastTick > limiter.maxWaitMs)
      return refuse(reply, Math.max(1, Math.ceil(limiter.maxWaitMs / 1000)));
    // 'close' comes after the response is sent, and also when the client goes away, perhaps while the request still
    // waits for its turn: watched from now on, so that a turn given to a request already gone is given back at once
    // (watched only from the turn, it was never given back, and after enough clients left in a queue every request
    // was refused).
    let closed = false;
    let release: (() => void) | undefined;
    reply.raw.once('close', () => {
      closed = true;
      release?.();
    });
    limiter.enter().then(
      (giveBack) => {
        if (closed) return giveBack();
        release = giveBack;
        done();
      },
      (error: unknown) => {
        if (!closed) refuse(reply, error instanceof WorkQueueTimeoutError ? error.retryAfter : 1);
      },
    );
  });
}
