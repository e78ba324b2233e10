import type { FastifyInstance } from 'fastify';
import type { PrometheusMetrics } from './prometheus';

/** What records a request's duration and status for /api/health (RequestMetrics). */
export interface RequestRecorder {
  record(durationMs: number, statusCode: number): void;
}

/**
 * Counts every request in while it is open and out when its connection's response closes, and records each answer
 * (duration and status, by route template) for /api/health and Prometheus. The way out is the response's `close`,
 * which comes once per request, answered or not: a client that leaves before its answer (no `onResponse` then) is
 * counted out too, so the in-flight gauge does not drift up.
 */
export function registerRequestMetrics(
  fastify: FastifyInstance,
  health: RequestRecorder,
  prometheus: PrometheusMetrics,
): void {
  fastify.addHook('onRequest', (_request, reply, done) => {
    prometheus.requestStarted();
    reply.raw.once('close', () => prometheus.requestClosed());
    done();
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    health.record(reply.elapsedTime, reply.statusCode);
    // The route's template (`/api/expenses/:id`), never the URL: label values stay bounded.
    prometheus.requestFinished(
      request.method,
      request.routeOptions.url,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
}
