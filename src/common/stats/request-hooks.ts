import type { FastifyInstance } from 'fastify';
import { onRequestClosed } from '../http/request-closed';
import type { PrometheusMetrics } from './prometheus';

/** What records a request's duration and status for /api/health (RequestMetrics). */
export interface RequestRecorder {
  record(durationMs: number, statusCode: number): void;
}

/**
 * Counts every request in while it is open and out when its response closes (see request-closed.ts: a client that
 * leaves before its answer is counted out too, so the in-flight gauge does not drift up), and records each answer
 * (duration and status, by route template) for /api/health and Prometheus.
 */
export function registerRequestMetrics(
  fastify: FastifyInstance,
  health: RequestRecorder,
  prometheus: PrometheusMetrics,
): void {
  fastify.addHook('onRequest', (_request, _reply, done) => {
    prometheus.requestStarted();
    done();
  });
  onRequestClosed(fastify, () => prometheus.requestClosed());
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
