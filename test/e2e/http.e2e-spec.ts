import { TestApp } from '../support/app';

describe('HTTP edge: CORS, security headers, request ids, unknown routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ CORS_ORIGINS: 'https://mess.college.edu' });
  });
  afterAll(() => t?.close());

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
    expect([other.status, other.body]).toEqual([
      403,
      { success: false, error: 'CORS: origin https://evil.example is not allowed; add it to CORS_ORIGINS' },
    ]);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const read = await t.get('/auth/admin/config', { headers: { origin: 'https://evil.example' } });
    expect(read.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('lets a page send every method and header the API reads, and read the headers it needs', async () => {
    const payment = await t.request('OPTIONS', '/accounts/00000000-0000-4000-8000-000000000001/payments', {
      headers: {
        origin: 'https://mess.college.edu',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, idempotency-key, x-request-id',
      },
    });
    expect(payment.status).toBe(204);
    const allowedHeaders = String(payment.headers['access-control-allow-headers'])
      .toLowerCase()
      .split(/,\s*/);
    expect(allowedHeaders).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'idempotency-key', 'x-request-id']),
    );
    expect(String(payment.headers['access-control-allow-methods']).split(/,\s*/)).toEqual(
      expect.arrayContaining(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
    );
    const read = await t.get('/live', { headers: { origin: 'https://mess.college.edu' } });
    expect(String(read.headers['access-control-expose-headers']).split(/,\s*/)).toEqual(
      expect.arrayContaining(['Content-Disposition', 'Retry-After', 'X-Request-Id']),
    );
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

describe('CORS with no CORS_ORIGINS set', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start();
  });
  afterAll(() => t.close());

  it('refuses a browser preflight with 403 and says what to set, instead of a bare 404', async () => {
    const res = await t.request('OPTIONS', '/auth/login', {
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' },
    });
    expect([res.status, res.body]).toEqual([
      403,
      {
        success: false,
        error:
          'CORS: origin http://localhost:5173 is not allowed; set CORS_ORIGINS (no browser origin is allowed now)',
      },
    ]);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('still serves same-origin requests that carry an Origin header (the docs page)', async () => {
    const res = await t.post(
      '/auth/login',
      { email: 'nobody@test.local', password: 'whatever-1' },
      { headers: { origin: 'http://localhost:3000' } },
    );
    expect([res.status, res.body]).toEqual([404, { success: false, error: 'User not found' }]);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('Content security policy of the docs page', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start();
  });
  afterAll(() => t?.close());

  it('keeps the policy but does not upgrade requests to https (the docs must load over plain HTTP)', async () => {
    const res = await t.get('/docs');
    expect(res.status).toBe(200);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
  });
});

describe('Client addresses behind a proxy (TRUST_PROXY)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ TRUST_PROXY: '1', RATE_LIMIT_PER_MINUTE: '5' });
  });
  afterAll(() => t?.close());

  // The ingress (the socket peer, one hop) appends the address it saw; anything left of it is the client's own text.
  const from = (client: string, spoofed?: string) => ({
    headers: { 'x-forwarded-for': spoofed ? `${spoofed}, ${client}` : client },
  });

  it('limits a client by the address the proxy saw, whatever it writes left of it', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i += 1)
      statuses.push((await t.get('/live', from('203.0.113.7', `10.0.0.${i}`))).status);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses.slice(5)).toEqual([429, 429, 429]);
    // another client behind the same proxy has its own budget
    expect((await t.get('/live', from('203.0.113.8'))).status).toBe(200);
  });
});

describe('Request bodies Fastify refuses before a route runs', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start();
  });
  afterAll(() => t?.close());

  const send = (body: string, contentType?: string) =>
    t.request('POST', '/auth/login', { body, headers: contentType ? { 'content-type': contentType } : {} });

  it('answers a malformed JSON body with 400 Malformed request body', async () => {
    for (const body of ['{"email":', '{email: "a@b.c"}', 'not json', '{"a":1}}']) {
      const res = await send(body, 'application/json');
      expect([body, res.status, res.body]).toEqual([
        body,
        400,
        { success: false, error: 'Malformed request body' },
      ]);
    }
  });

  it('answers an empty body sent as JSON with a clear 400', async () => {
    const res = await send('', 'application/json');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: 'Request body is empty; send a JSON object' });
  });

  it('answers a body declared in a charset other than UTF-8 with 415, and changes nothing', async () => {
    for (const type of [
      'application/json; charset=utf-16',
      'application/json; charset="ISO-8859-1"',
      'application/x-www-form-urlencoded; charset=latin1',
    ]) {
      const res = await send('{"email":"a@b.c","password":"x"}', type);
      expect([type, res.status, res.body]).toEqual([
        type,
        415,
        { success: false, error: 'Unsupported charset; send the body in UTF-8' },
      ]);
    }
    // UTF-8 declared in either spelling is read as usual (here: a login of an unknown email, 404 by the contract).
    for (const type of ['application/json; charset=UTF-8', 'application/json;charset=utf8']) {
      const res = await send('{"email":"nobody@example.com","password":"wrong-password"}', type);
      expect([type, res.status]).toEqual([type, 404]);
    }
  });

  // An HTML form body (application/x-www-form-urlencoded) is still parsed by Nest and validated like JSON.
  it('answers a body that is not JSON with 415', async () => {
    for (const type of [
      'text/plain',
      'text/plain; charset=utf-8',
      'application/xml',
      'multipart/form-data',
    ]) {
      const res = await send('email=a@b.c', type);
      expect([type, res.status, res.body]).toEqual([
        type,
        415,
        { success: false, error: 'Unsupported content type; send application/json' },
      ]);
    }
  });
});
