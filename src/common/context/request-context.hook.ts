import type { FastifyInstance } from 'fastify';
import { requestContext } from './request-context';

/**
 * Runs the rest of each request (Nest's guards, pipes, handler, interceptors and exception filter, all called from
 * the route's handler) inside its request context, from a `preHandler` hook: it runs once the body is parsed (an
 * `onRequest` hook's context did not survive body parsing, whose stream events arrive in the socket's context), and
 * Fastify calls the route's handler from the hook's `done`, so the handler starts inside `run` and every await after
 * it keeps the context. A hook rather than a global Nest interceptor: with no global interceptor, Nest answers a
 * route without wrapping it in RxJS observables.
 */
export function registerRequestContext(fastify: FastifyInstance): void {
  const waits = new WeakMap<object, Promise<unknown>[]>();
  fastify.addHook('preHandler', (request, _reply, done) => {
    const answerAfter: Promise<unknown>[] = [];
    waits.set(request, answerAfter);
    requestContext.run(
      { requestId: request.id, path: request.params as Record<string, string>, answerAfter },
      done,
    );
  });
  // The answer waits for what the request asked it to (`requestContext.answerAfter`), whatever its status.
  fastify.addHook('onSend', async (request, _reply, payload) => {
    const pending = waits.get(request);
    if (pending?.length) await Promise.allSettled(pending);
    return payload;
  });
}
