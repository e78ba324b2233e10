import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

/** Helmet's headers with a content security policy that also lets the docs page load over plain HTTP. */
export const SECURITY_HEADERS: Readonly<HelmetOptions> = {
  contentSecurityPolicy: {
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      // Helmet's default would make a browser fetch the docs' assets over https even when the service is
      // reached over plain HTTP (a LAN address, a port-forward), and /api/docs would render blank. Transport
      // security belongs to the TLS terminator in front, which can send HSTS.
      upgradeInsecureRequests: null,
    },
  },
};

/**
 * Sets helmet's security headers on every response, with one helmet middleware built at start-up. (@fastify/helmet
 * called `helmet(options)` inside its onRequest hook, so every request parsed the policy's directives and built
 * eleven middlewares again: ~50 µs of CPU and a heap of garbage per request, for the same headers every time.)
 */
export function registerSecurityHeaders(
  fastify: FastifyInstance,
  options: HelmetOptions = SECURITY_HEADERS,
): void {
  const apply = helmet(options);
  fastify.addHook('onRequest', (request, reply, done) => {
    apply(request.raw, reply.raw, (error?: unknown) => done(error as Error | undefined));
  });
}
