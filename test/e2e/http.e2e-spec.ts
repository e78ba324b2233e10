import { TestApp } from '../support/app';

describe('HTTP edge: CORS, security headers, request ids, unknown routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ CORS_ORIGINS: 'https://mess.college.edu' });
  });
  afterAll(() => t.close());

  const preflight = (origin: string) =>
    t.request('OPTIONS', '/auth/login', {
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });

  it('answers cross-origin requests only from CORS_ORIGINS', async () => {
    const allowed = await preflight('https://mess.college.edu');
    expect(allowed.status).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://mess.college.edu');
    expect(String(allowed.headers['access-control-allow-methods'])).toContain('POST');

    const other = await preflight('https://evil.example');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const read = await t.get('/auth/admin/config', { headers: { origin: 'https://evil.example' } });
    expect(read.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('sends security headers', async () => {
    const res = await t.get('/live');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(String(res.headers['content-security-policy'])).toContain("default-src 'self'");
    expect(String(res.headers['strict-transport-security'])).toContain('max-age=');
  });

  it('gives every response a request id, keeping a well-formed one from the caller', async () => {
    const own = await t.get('/health', { headers: { 'x-request-id': 'trace-42.abc' } });
    expect(own.headers['x-request-id']).toBe('trace-42.abc');
    const made = await t.get('/health', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers unknown routes with 404 in the error shape', async () => {
    const res = await t.get('/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: 'Cannot GET /api/nothing-here' });
  });
});
