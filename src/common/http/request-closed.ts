import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Told once per request when its response closes: answered (`reply.sent`), or left by its client first. */
export type ClosedListener = (request: FastifyRequest, reply: FastifyReply) => void;

const listenersOf = new WeakMap<FastifyInstance, ClosedListener[]>();

/**
 * Calls `listener` when each request's response closes. The response's `close` comes once per request, after the
 * answer or when the client goes away (then without `onResponse`, and Fastify's onRequestAbort only fires while a
 * body is still being read), so what must hear of every request, answered or not, listens here: one `close` listener
 * per request, whoever asks.
 */
export function onRequestClosed(fastify: FastifyInstance, listener: ClosedListener): void {
  let listeners = listenersOf.get(fastify);
  if (!listeners) {
    const all: ClosedListener[] = [];
    listenersOf.set(fastify, (listeners = all));
    fastify.addHook('onRequest', (request, reply, done) => {
      reply.raw.once('close', () => {
        for (const heard of all) heard(request, reply);
      });
      done();
    });
  }
  listeners.push(listener);
}
