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
 * Helmet's headers for `options`, as helmet's own middleware sets them: it is run once against a response that only
 * records them. Every one of them is the same for every request (no nonce), so a request needs none of its work.
 */
export function securityHeaders(options: HelmetOptions = SECURITY_HEADERS): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  let failed: unknown;
  helmet(options)({} as never, recorder as never, (error?: unknown) => {
    failed = error;
  });
  if (failed) throw failed instanceof Error ? failed : new Error(String(failed));
  return Object.freeze(headers);
}

/**
 * Sets helmet's security headers on every response: computed once at start-up (securityHeaders), set by one hook.
 * (@fastify/helmet called `helmet(options)` inside its onRequest hook, so every request parsed the policy's
 * directives and built eleven middlewares again; even helmet's middleware built once runs eleven functions and
 * their closures per request, for the same headers every time.)
 */
export function registerSecurityHeaders(
  fastify: FastifyInstance,
  options: HelmetOptions = SECURITY_HEADERS,
): void {
  const headers = securityHeaders(options);
  fastify.addHook('onRequest', (_request, reply, done) => {
    void reply.headers(headers);
    done();
  });
}
