import { connect } from 'node:net';
import { TestApp } from '../support/app';

/**
 * Every answer the server writes is ours, down to the socket: what Node's HTTP parser refuses (headers too large, a
 * malformed request) and a body over the limit come in the service's error format with Connection: close, so a
 * pooling client (fetch's undici pool, as browsers and the generated client pool) never sends its next request on
 * a socket that is about to go.
 */
describe('Errors raised below the framework, seen by a pooled client', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await TestApp.start({ BODY_LIMIT_BYTES: '10000' });
    await t.app.listen(0, '127.0.0.1');
    base = `${await t.app.getUrl()}/api`.replace('[::1]', '127.0.0.1');
  });
  afterAll(() => t?.close());

  /** An ordinary request on the pool right after a refusal: answered 200, not broken by a dying socket. */
  const ordinaryRequestWorks = async (): Promise<boolean> => {
    try {
      const ordinary = await fetch(`${base}/live`);
      await ordinary.arrayBuffer();
      return ordinary.status === 200;
    } catch {
      return false;
    }
  };

  it('a 20 kB header then an ordinary request, 1,000 times: every 431 in our format, no broken request', async () => {
    const big = 'x'.repeat(20_000);
    let broken = 0;
    const seen = new Map<string, number>();
    for (let i = 0; i < 1_000; i += 1) {
      try {
        const refused = await fetch(`${base}/live`, { headers: { 'x-padding': big } });
        const body = await refused.text();
        const key = `${refused.status} ${refused.headers.get('connection')} ${body}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
        expect(refused.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      } catch {
        broken += 1;
      }
      if (!(await ordinaryRequestWorks())) broken += 1;
    }
    expect(broken).toBe(0);
    expect([...seen.keys()]).toEqual([
      '431 close {"success":false,"error":"Request header fields are too large"}',
    ]);
  });

  it('a body over the limit (413) and then an ordinary request: nothing broken', async () => {
    let broken = 0;
    for (let i = 0; i < 50; i += 1) {
      try {
        const refused = await fetch(`${base}/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'a@b.c', password: 'p'.repeat(20_000) }),
        });
        expect(refused.status).toBe(413);
        expect(await refused.json()).toEqual({ success: false, error: 'Request body is too large' });
      } catch {
        broken += 1;
      }
      if (!(await ordinaryRequestWorks())) broken += 1;
    }
    expect(broken).toBe(0);
  });

  it('a malformed request line is answered 400 in our format with Connection: close', async () => {
    const url = new URL(base);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () =>
        socket.write('GET /api/live HTTP/1.1 extra\r\n\r\n'),
      );
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    expect(head).toMatch(/\r\nConnection: close\r\n/i);
    expect(head).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}/i);
    expect(JSON.parse(body)).toEqual({ success: false, error: 'Malformed HTTP request' });
    // and the server answers the next client as usual
    expect((await fetch(`${base}/live`)).status).toBe(200);
  });
});

describe('Input a route does not read: query parameters, body fields', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start();
  });
  afterAll(() => t?.close());

  it('are refused with 400 naming each, like an unknown body field', async () => {
    const token = await t.adminToken();
    const res = await t.get('/auth/verify?page=1&page=2&x=y', { token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: 'Validation failed',
      details: [
        { field: 'page', message: 'page is not an accepted query parameter' },
        { field: 'x', message: 'x is not an accepted query parameter' },
      ],
    });
    expect((await t.get('/live?probe=1')).status).toBe(400);
    // …also what the query parser set aside, a prototype name or a malformed value, which no DTO is there to answer
    const aside = await t.get('/notifications/preferences?__proto__=1&x=%FF', { token });
    expect([aside.status, aside.body.details]).toEqual([
      400,
      [
        { field: '__proto__', message: '__proto__ is not an accepted field' },
        { field: 'x', message: 'x is malformed (bad percent-encoding or not UTF-8 Unicode)' },
      ],
    ]);
    // routes that take a query still validate their own, as before
    expect((await t.get('/auth/verify', { token })).status).toBe(200);
    expect((await t.get('/users?page=1&limit=5', { token })).status).toBe(200);
  });

  it('body-less actions accept an empty JSON body (as generic HTTP wrappers send) and refuse fields', async () => {
    const admin = await t.adminToken();
    const json = { 'content-type': 'application/json' };
    for (const body of ['', '{}']) {
      const pending = await t.post('/auth/register', {
        email: `wrapper${body.length}@college.edu`,
        password: 'a-good-password-1',
        fullName: 'Wrapped Request',
        collegeId: 'CS21B001',
        room: 'A-1',
        phone: '+91-9876543210',
      });
      const approve = await t.request('PUT', `/users/${pending.body.userId}/approve`, {
        token: admin,
        headers: json,
        body,
      });
      expect([body, approve.status]).toEqual([body, 200]);
    }
    const someone = (await t.member()).id;
    const refused = await t.request('PUT', `/users/${someone}/reject`, {
      token: admin,
      headers: json,
      body: JSON.stringify({ unexpected: true }),
    });
    expect([refused.status, refused.body]).toEqual([
      400,
      {
        success: false,
        error: 'Validation failed',
        details: [{ field: 'unexpected', message: 'unexpected is not an accepted field' }],
      },
    ]);
    expect((await t.get(`/users/${someone}`, { token: admin })).body.user.status).toBe('approved');
    // a route that takes a body still says an empty one is empty
    const login = await t.request('POST', '/auth/login', { headers: json, body: '' });
    expect([login.status, login.body.error]).toEqual([400, 'Request body is empty; send a JSON object']);
  });
});
