import { TestApp, messSetup } from '../support/app';

/**
 * The families of issue 13, each fixed where the input enters rather than route by route: every answer is a 4xx in
 * the usual `{success:false,error,details?}` shape, and nothing changes.
 */
describe('Hostile input is refused with 400, on every kind of route', () => {
  let t: TestApp;
  let admin: string;
  let manager: string;

  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.adminToken();
    manager = (await t.member('manager')).token;
    expect((await t.post('/auth/admin/setup', messSetup(), { token: admin })).status).toBe(200);
  }, 120_000);
  afterAll(() => t.close());

  const raw = (
    method: string,
    url: string,
    payload?: string | Buffer,
    headers: Record<string, string> = {},
  ) =>
    t.app.inject({
      method: method as 'POST',
      url,
      headers: { 'content-type': 'application/json', ...headers },
      ...(payload !== undefined ? { payload } : {}),
    });

  it('a CSV route answers bad query values like every route: 400 JSON naming the field', async () => {
    const cases: [string, string][] = [
      ['month=2025-13', 'month'],
      ['month=0', 'month'],
      ['month=202501', 'month'],
      [`month=${encodeURIComponent("' OR 1=1--")}`, 'month'],
      ['method=x', 'method'],
      ['month=2025-01&month=2025-02', 'month'],
      ['month[]=2025-01', 'month[]'],
      ['__proto__[x]=1', '__proto__[x]'],
      ['hasOwnProperty=1', 'hasOwnProperty'],
      ['month=%ED%A0%80', 'month'],
    ];
    for (const route of ['/analytics/shares.csv', '/analytics/shares']) {
      for (const [query, field] of cases) {
        const res = await t.get(`${route}?${query}`, { token: manager });
        expect([route, query, res.status, res.headers['content-type']]).toEqual([
          route,
          query,
          400,
          'application/json; charset=utf-8',
        ]);
        expect(res.body).toMatchObject({ success: false, error: 'Validation failed' });
        expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      }
    }
    const ok = await t.get('/analytics/shares.csv?month=2025-03', { token: manager });
    expect([ok.status, ok.headers['content-type']]).toEqual([200, 'text/csv; charset=utf-8']);
  });

  it('a body that is JSON but not an object (null, an array, a number, a string) is a 400 and changes nothing', async () => {
    const before = (await t.get('/auth/admin/config', { token: admin })).body.config;
    for (const [method, url] of [
      ['PATCH', '/api/auth/admin/config'],
      ['PUT', '/api/auth/admin/config'],
      ['POST', '/api/expenses'],
      ['POST', '/api/messes'],
    ]) {
      for (const payload of ['null', '[]', '5', '"x"']) {
        const res = await raw(method, url, payload, { authorization: `Bearer ${admin}` });
        expect([res.statusCode, res.json()]).toEqual([
          400,
          {
            success: false,
            error: 'Validation failed',
            details: [{ field: 'body', message: 'the body must be a JSON object' }],
          },
        ]);
      }
    }
    expect((await t.get('/auth/admin/config', { token: admin })).body.config).toEqual(before);
  });

  it('numbers in queries are decimal only, and one value per parameter', async () => {
    for (const url of [
      '/notifications?limit=0x10',
      '/expenses?limit=1e1',
      '/expenses?limit=%2B5',
      '/expenses?page=Infinity',
      '/expenses?limit=10&limit=20',
      '/feedback?rating=0b11',
    ]) {
      const res = await t.get(url, { token: admin });
      expect([url, res.status, res.body.success]).toEqual([url, 400, false]);
    }
    expect((await t.get('/expenses?limit=10&page=1', { token: admin })).body.pagination).toMatchObject({
      limit: 10,
      page: 1,
    });
  });

  it('a body nested past 32 levels is refused in any field of any route, quickly', async () => {
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    const routes: [string, string, (d: string) => string][] = [
      ['POST', '/api/auth/login', (d) => `{"email":${d},"password":"x"}`],
      ['POST', '/api/auth/register', (d) => `{"fullName":${d}}`],
      ['POST', '/api/feedback', (d) => `{"comment":${d}}`],
      ['POST', '/api/auth/password', (d) => `{"currentPassword":${d}}`],
      ['PUT', '/api/expenses/00000000-0000-4000-8000-000000000000', (d) => `{"amount":${d}}`],
      ['PUT', '/api/meals/00000000-0000-4000-8000-000000000000', (d) => `{"dishes":${d}}`],
    ];
    for (const [method, url, body] of routes) {
      for (const depth of [33, 10_000, 50_000]) {
        const started = performance.now();
        const res = await raw(method, url, body(deep(depth)), { authorization: `Bearer ${admin}` });
        expect([url, depth, res.statusCode, res.json()]).toEqual([
          url,
          depth,
          400,
          { success: false, error: 'Request body is nested too deeply (more than 32 levels)' },
        ]);
        expect(performance.now() - started).toBeLessThan(1000);
      }
    }
  });

  it('text that is not well-formed Unicode is a 400 naming the field, and changes nothing', async () => {
    const email = 'lone@example.com';
    for (const [url, body] of [
      ['/api/auth/login', `{"email":"a\\ud800@example.com","password":"password-long"}`],
      [
        '/api/auth/register',
        `{"email":"${email}","password":"password-long","fullName":"A\\udc00","collegeId":"C1","room":"R1","phone":"9876500001"}`,
      ],
    ]) {
      const res = await raw('POST', url, body);
      expect([url, res.statusCode, res.json().error]).toEqual([url, 400, 'Validation failed']);
      expect(res.json().details[0].field).toMatch(/^(email|fullName)$/);
    }
    // invalid UTF-8 bytes, and a malformed percent-encoded query value
    const bytes = Buffer.concat([Buffer.from('{"email":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]);
    expect((await raw('POST', '/api/auth/login', bytes)).json()).toEqual({
      success: false,
      error: 'Request body is not valid UTF-8',
    });
    // nothing was registered
    const users = await t.get(`/users?limit=100`, { token: admin });
    expect(users.body.users.map((u: { email: string }) => u.email)).not.toContain(email);
  });
});
