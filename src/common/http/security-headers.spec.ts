import Fastify from 'fastify';
import helmet from 'helmet';
import { createServer } from 'node:http';
import { registerSecurityHeaders, SECURITY_HEADERS, securityHeaders } from './security-headers';

describe('security headers', () => {
  it("are exactly what helmet's middleware sets on a real response", async () => {
    // Helmet itself on a real Node response, to compare with the headers computed once.
    const server = createServer((request, response) => {
      helmet(SECURITY_HEADERS)(request, response, () => response.end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const res = await fetch(`http://127.0.0.1:${port}/`);
      const fromHelmet: Record<string, string> = {};
      for (const name of Object.keys(securityHeaders())) fromHelmet[name] = res.headers.get(name) ?? '(absent)';
      expect(fromHelmet).toEqual(securityHeaders());
      // Everything helmet sets is among them (the response's own headers aside).
      const own = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
      const set = [...res.headers.keys()].filter((name) => !own.has(name));
      expect(set.sort()).toEqual(Object.keys(securityHeaders()).sort());
      expect(securityHeaders()['content-security-policy']).toContain("default-src 'self'");
      expect(securityHeaders()['content-security-policy']).not.toContain('upgrade-insecure-requests');
    } finally {
      server.close();
    }
  });

  it('are on every answer of a Fastify server, a 404 too', async () => {
    const app = Fastify();
    registerSecurityHeaders(app);
    app.get('/x', () => ({ ok: true }));
    try {
      expect(Object.keys(securityHeaders()).length).toBeGreaterThan(0);
      for (const url of ['/x', '/nowhere']) {
        const res = await app.inject({ url });
        for (const [name, value] of Object.entries(securityHeaders())) expect(res.headers[name]).toBe(value);
      }
    } finally {
      await app.close();
    }
  });
});
