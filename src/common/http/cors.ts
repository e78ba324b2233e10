import type { FastifyCorsOptions } from '@fastify/cors';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Why a browser's preflight was refused: the origin, and the setting that would allow it. */
export const corsRefused = (origin: string, configured: boolean) =>
  configured
    ? `CORS: origin ${origin} is not allowed; add it to CORS_ORIGINS`
    : `CORS: origin ${origin} is not allowed; set CORS_ORIGINS (no browser origin is allowed now)`;

/**
 * CORS for the origins of CORS_ORIGINS only; any other origin gets no CORS headers (and no preflight answer from
 * @fastify/cors, which would otherwise send a 204 without Access-Control-Allow-Origin).
 */
export function corsOptions(origins: readonly string[]): FastifyCorsOptions {
  const allowed = new Set(origins);
  return {
    origin: (origin, callback) =>
      callback(null, origin !== undefined && allowed.has(origin) ? origin : false),
    // Every method the API serves and every request header it reads (a payment's Idempotency-Key too); and the
    // answer headers a page needs: a download's file name, how long to wait, the request id to quote.
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'],
    exposedHeaders: ['Content-Disposition', 'Retry-After', 'X-Request-Id'],
    maxAge: 600,
  };
}

/**
 * An onRequest hook, after the CORS one: a preflight (OPTIONS with Origin and Access-Control-Request-Method) that
 * CORS did not answer comes from an origin outside CORS_ORIGINS. It is answered 403 with an error naming the origin
 * and the setting, where it used to be a bare 404 (no CORS_ORIGINS) or a 204 without Access-Control-Allow-Origin —
 * both of which a frontend developer could only read as "the server is broken". Other requests from such an origin
 * are served as before, without CORS headers: a same-origin POST (the docs page's "Try it out") carries an Origin
 * header too, and it is the browser that keeps a foreign page from reading the answer.
 */
export function refuseForeignPreflight(origins: readonly string[]) {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const origin = request.headers.origin;
    if (request.method === 'OPTIONS' && origin && request.headers['access-control-request-method']) {
      void reply.code(403).send({ success: false, error: corsRefused(origin, origins.length > 0) });
      return;
    }
    done();
  };
}
