import SwaggerParser from '@apidevtools/swagger-parser';
import { RequestMethod } from '@nestjs/common';
import Ajv, { type ValidateFunction } from 'ajv';
import { randomUUID } from 'node:crypto';
import { DiscoveryService } from '@nestjs/core';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { IS_PUBLIC, PERMISSION } from '../../src/common/auth/auth.decorators';
import { MONTH_CLOSED } from '../../src/common/http/api-docs';
import { messSetup, RequestOptions, Response, TestApp } from '../support/app';
import { LocalIdentityProvider } from '../support/idp';

interface DeclaredRoute {
  route: string;
  isPublic: boolean;
  /** Behind @Roles(…): the guard may answer 403 {"error":"Forbidden"}. */
  hasRoles: boolean;
}

/** Every route the controllers declare, as `METHOD /api/path/{param}`, whether it is @Public() or has @Roles(). */
function declaredRoutes(t: TestApp): DeclaredRoute[] {
  const routes: DeclaredRoute[] = [];
  for (const wrapper of t.app.get(DiscoveryService).getControllers()) {
    const type = wrapper.metatype as (new (...args: never[]) => unknown) | undefined;
    if (!type?.prototype) continue;
    const base = String(Reflect.getMetadata(PATH_METADATA, type) ?? '');
    for (const name of Object.getOwnPropertyNames(type.prototype)) {
      const handler = (type.prototype as Record<string, unknown>)[name];
      if (typeof handler !== 'function' || name === 'constructor') continue;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) continue;
      const path = String(Reflect.getMetadata(PATH_METADATA, handler) ?? '');
      const full = `/api/${[base, path].filter((p) => p && p !== '/').join('/')}`
        .replace(/\/+/g, '/')
        .replace(/:(\w+)/g, '{$1}');
      const isPublic =
        Reflect.getMetadata(IS_PUBLIC, handler) === true || Reflect.getMetadata(IS_PUBLIC, type) === true;
      const permission = Reflect.getMetadata(PERMISSION, handler) ?? Reflect.getMetadata(PERMISSION, type);
      routes.push({ route: `${RequestMethod[method]} ${full}`, isPublic, hasRoles: Boolean(permission) });
    }
  }
  return routes.sort((a, b) => a.route.localeCompare(b.route));
}

/** Error bodies are exact: a field the schema does not name is drift too. */
const EXACT_SCHEMAS = new Set(['GuardErrorDto', 'ErrorResponseDto', 'FieldErrorDto']);

/** OpenAPI 3.0 schema → JSON Schema for ajv: `nullable` becomes a null type, refs point into one `doc` schema. */
function toJsonSchema(node: any): any {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const out: any = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'example' || key === 'nullable') continue;
    if (key === '$ref') out.$ref = `doc#/definitions/${String(value).split('/').pop()}`;
    else if (key === 'properties')
      out.properties = Object.fromEntries(
        Object.entries(value as object).map(([name, schema]) => [name, toJsonSchema(schema)]),
      );
    else out[key] = toJsonSchema(value);
  }
  if (node.nullable) {
    // A nullable composition ({type: object, nullable, allOf: [$ref]}): null, or the composition.
    if (out.allOf || out.oneOf || out.anyOf) return { anyOf: [out, { type: 'null' }] };
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    if (!out.type && !out.enum) return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

/** Validates bodies against the schemas the document declares, per operation and status. */
class DocumentValidator {
  private readonly ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  private readonly compiled = new Map<object, ValidateFunction>();

  constructor(private readonly doc: any) {
    const definitions = Object.fromEntries(
      Object.entries(doc.components.schemas as Record<string, object>).map(([name, schema]) => {
        const converted = toJsonSchema(schema);
        return [name, EXACT_SCHEMAS.has(name) ? { ...converted, additionalProperties: false } : converted];
      }),
    );
    this.ajv.addSchema({ $id: 'doc', definitions });
  }

  /** The JSON schema of one documented answer, or a reason why there is none. */
  responseSchema(method: string, path: string, status: number | string): object | string {
    const op = this.doc.paths[path]?.[method.toLowerCase()];
    if (!op) return `${method} ${path} is not documented`;
    const response = op.responses[String(status)];
    if (!response)
      return `${method} ${path} answered ${status}, but documents only ${Object.keys(op.responses).join(', ')}`;
    const schema = response.content?.['application/json']?.schema;
    return schema ?? `${method} ${path} ${status} has no application/json schema`;
  }

  /** Null when `body` matches `schema`, else the validation errors. */
  check(schema: object, body: unknown): string | null {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(toJsonSchema(schema));
      this.compiled.set(schema, validate);
    }
    return validate(body) ? null : this.ajv.errorsText(validate.errors, { dataVar: 'body' });
  }
}

/** The component names a response schema refers to at its top (a `$ref`, or each branch of a `oneOf`). */
function topRefs(schema: any): string[] {
  const refs = schema?.oneOf ?? schema?.anyOf ?? [schema];
  return refs
    .map((s: any) =>
      String(s?.$ref ?? '')
        .split('/')
        .pop(),
    )
    .filter(Boolean);
}

const ERROR_STATUS = /^[45]\d\d$/;

describe('API documentation', () => {
  let t: TestApp;
  let doc: any;
  let validator: DocumentValidator;
  const idp = new LocalIdentityProvider();
  beforeAll(async () => {
    await idp.start();
    t = await TestApp.start({
      IDP_CLIENT_ID: idp.clientId,
      IDP_CERTS_URL: idp.certsUrl,
      // Low enough for the 429 below; every other login in this file uses its own email.
      LOGIN_RATE_LIMIT_PER_EMAIL: '5',
    });
    doc = (await t.get('/docs.json')).body;
    validator = new DocumentValidator(doc);
  }, 120_000); // a cold start (migrations on the embedded engine) outlasts the default 30 s on a busy machine
  afterAll(async () => {
    await t.close();
    await idp.stop();
  });

  it('is a valid OpenAPI 3.0 document', async () => {
    expect(doc.openapi).toMatch(/^3\.0\.\d+$/);
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
  });

  it('describes every route the service serves', () => {
    const documented = Object.entries(doc.paths as Record<string, object>)
      .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`))
      .sort((a, b) => a.localeCompare(b));
    const declared = declaredRoutes(t).map((r) => r.route);
    expect(declared.length).toBeGreaterThanOrEqual(25);
    expect(documented).toEqual(declared);
    for (const route of [
      'POST /api/auth/register',
      'POST /api/auth/login',
      'POST /api/auth/idp',
      'POST /api/auth/logout',
      'GET /api/auth/verify',
      'GET /api/verify',
      'POST /api/auth/password',
      'POST /api/auth/admin/setup',
      'GET /api/auth/admin/config',
      'GET /api/users',
      'GET /api/users/{id}',
      'PUT /api/users/{id}',
      'PUT /api/users/{id}/role',
      'PUT /api/users/{id}/approve',
      'PUT /api/users/{id}/reject',
      'POST /api/users/profile',
      'GET /api/health',
      'GET /api/ready',
      'GET /api/live',
      'GET /api/metrics',
      'GET /api/admin/health-summary',
      'GET /api/health/db',
      'GET /api/health/cache',
      'GET /api/health/jobs',
    ]) {
      expect(documented).toContain(route);
    }
  });

  it('gives every operation a summary, a success schema, and auth with its 401 unless public', () => {
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect([where, typeof op.summary]).toEqual([where, 'string']);
        const success = Object.entries(op.responses as Record<string, any>).find(([code]) =>
          code.startsWith('2'),
        );
        const content = (success?.[1].content ?? {}) as Record<string, { schema?: object }>;
        expect([where, Object.values(content).some((c) => Boolean(c.schema))]).toEqual([where, true]);
        const secured = Array.isArray(op.security) && op.security.length > 0;
        if (secured)
          expect([where, Object.keys(op.responses)]).toEqual([where, expect.arrayContaining(['401'])]);
      }
    }
  });

  it('documents a bearer token on exactly the routes that need one', () => {
    for (const { route, isPublic } of declaredRoutes(t)) {
      const [method, path] = route.split(' ');
      const op = doc.paths[path][method.toLowerCase()];
      // A public route says so (`security: []`) rather than leaving it unsaid.
      expect([route, isPublic ? [] : [{ bearer: [] }]]).toEqual([route, op.security]);
    }
  });

  it('serves the interactive page', async () => {
    const page = await t.get('/docs');
    expect(page.status).toBe(200);
    expect(String(page.headers['content-type'])).toContain('text/html');
    expect(page.body).toContain('swagger-ui');
  });

  it('documents the errors each kind of route can give, with the body shape the service really sends', () => {
    const declared = new Map(declaredRoutes(t).map((r) => [r.route, r]));
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        const route = declared.get(where)!;
        const statuses = Object.keys(op.responses);
        const refs = (status: string) => topRefs(op.responses[status]?.content?.['application/json']?.schema);
        // The rate limiter covers every route.
        expect([where, statuses]).toEqual([where, expect.arrayContaining(['429'])]);
        // A body can be malformed, carry unknown fields or be too large.
        if (op.requestBody)
          expect([where, statuses]).toEqual([where, expect.arrayContaining(['400', '413'])]);
        // The guard's bare {error} on exactly the guarded routes: 401 when a token is needed, 403 with @Roles.
        const secured = Array.isArray(op.security) && op.security.length > 0;
        if (secured) expect([where, refs('401')]).toEqual([where, expect.arrayContaining(['GuardErrorDto'])]);
        else expect([where, refs('401').includes('GuardErrorDto')]).toEqual([where, false]);
        if (route.hasRoles)
          expect([where, refs('403')]).toEqual([where, expect.arrayContaining(['GuardErrorDto'])]);
        else expect([where, refs('403').includes('GuardErrorDto')]).toEqual([where, false]);
        // Every other error body is the service's envelope.
        for (const status of statuses.filter((s) => ERROR_STATUS.test(s) && !['401', '403'].includes(s))) {
          if (status === '503' && refs(status).length === 1 && !refs(status).includes('ErrorResponseDto'))
            continue; // health probes answer 503 with their own report
          expect([where, status, refs(status)]).toEqual([where, status, ['ErrorResponseDto']]);
        }
      }
    }
  });

  it('gives every error answer examples that match its schema, distinct per status', () => {
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        const seen = new Map<string, string>();
        for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
          if (!ERROR_STATUS.test(status)) continue;
          const where = `${method.toUpperCase()} ${path} ${status}`;
          const json = response.content?.['application/json'];
          if (!json?.examples) {
            // Only the health probes' own 503 report goes without examples.
            expect([where, status]).toEqual([where, '503']);
            continue;
          }
          const examples = Object.values(json.examples as Record<string, { value: unknown }>);
          expect([where, examples.length > 0]).toEqual([where, true]);
          for (const { value } of examples) {
            expect([where, value, validator.check(json.schema, value)]).toEqual([where, value, null]);
            const key = JSON.stringify(value);
            expect([where, key, seen.get(key)]).toEqual([where, key, undefined]);
            seen.set(key, status);
          }
        }
      }
    }
  });

  describe('answers as documented', () => {
    /** Every (status, body shape) this suite saw, to prove each class of error was really driven. */
    const seen = new Set<string>();
    let admin: string;
    let student: Awaited<ReturnType<TestApp['member']>>;
    let other: Awaited<ReturnType<TestApp['member']>>;
    let manager: Awaited<ReturnType<TestApp['member']>>;
    let treasurer: Awaited<ReturnType<TestApp['member']>>;

    /**
     * Sends a real request and checks the answer against the document: its status must be documented for that
     * operation and its body must match the schema declared for that status.
     */
    async function call(
      method: string,
      template: string,
      options: RequestOptions & { params?: Record<string, string>; query?: Record<string, string> } = {},
    ): Promise<Response> {
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => options.params![name]);
      const url = path + (options.query ? `?${new URLSearchParams(options.query).toString()}` : '');
      const res = await t.request(method, url, options);
      const where = `${method} ${template} → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
      const schema = validator.responseSchema(method, template, res.status);
      expect([where, typeof schema === 'string' ? schema : 'documented']).toEqual([where, 'documented']);
      const contentType = String(res.headers['content-type'] ?? '');
      if (contentType.includes('json'))
        expect([where, validator.check(schema as object, res.body)]).toEqual([where, null]);
      if (res.status >= 400) {
        const shape =
          res.body && typeof res.body === 'object' && 'success' in res.body ? 'envelope' : 'guard';
        seen.add(`${res.status} ${shape}`);
      }
      return res;
    }

    const expectError = (res: Response, status: number, body: object) =>
      expect([res.status, res.body]).toEqual([status, body]);

    beforeAll(async () => {
      admin = await t.adminToken();
      student = await t.member('student');
      other = await t.member('student');
      manager = await t.member('manager');
      treasurer = await t.member('treasurer');
      const setup = await call('POST', '/api/auth/admin/setup', {
        token: admin,
        body: messSetup(),
      });
      expect(setup.status).toBe(200);
    });

    it('"Try it out" with every example filled in at once makes a valid request on every read', async () => {
      // Swagger UI pre-fills each parameter that has an example; examples of exclusive parameters (date and week,
      // month and a custom period) would make the first call a newcomer tries a 400.
      let tried = 0;
      for (const [template, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
        const op = ops.get;
        if (!op) continue;
        const parameters = (op.parameters ?? []) as {
          in: string;
          name: string;
          example?: unknown;
          schema?: { example?: unknown };
        }[];
        const params: Record<string, string> = {};
        const query: Record<string, string> = {};
        for (const p of parameters) {
          const example = p.example ?? p.schema?.example;
          if (example === undefined) continue;
          (p.in === 'path' ? params : query)[p.name] = String(example);
        }
        if (parameters.some((p) => p.in === 'path' && !(p.name in params))) continue;
        if (!Object.keys(query).length && !Object.keys(params).length) continue;
        const path = template.replace(/\{(\w+)\}/g, (_, name: string) => params[name]);
        const res = await t.get(`${path}?${new URLSearchParams(query).toString()}`, { token: admin });
        expect([template, query, res.status]).toEqual([template, query, 200]);
        tried += 1;
      }
      expect(tried).toBeGreaterThanOrEqual(10);
    });

    it('answers success bodies that match their schemas (nullable fields included)', async () => {
      expect((await call('GET', '/api/auth/admin/config')).body.config.createdBy).toEqual(expect.any(String));
      const profile = await call('POST', '/api/users/profile', {
        token: other.token,
        body: { phone: '9123456780' },
      });
      expect(profile.status).toBe(200);
      expect(
        (await call('GET', '/api/users/{id}', { token: other.token, params: { id: other.id } })).status,
      ).toBe(200);
      await call('GET', '/api/users', { token: admin });
      await call('GET', '/api/auth/verify', { token: student.token });
      await call('GET', '/api/notifications/preferences', { token: student.token });
      // Approvals and role changes (before and after), the setup (before: null), the start-up admin (actor: null).
      const trail = await call('GET', '/api/audit', { token: treasurer.token, query: { limit: '100' } });
      expect(trail.body.events.map((e: { actor: unknown }) => e.actor)).toContain(null);
    });

    it('401: the guard answers {"error"} when the token is missing or invalid', async () => {
      expectError(await call('GET', '/api/expenses'), 401, { error: 'No token' });
      expectError(
        await call('GET', '/api/users/{id}', { params: { id: student.id }, token: 'not.a.jwt' }),
        401,
        {
          error: 'Invalid token',
        },
      );
      expectError(await call('POST', '/api/auth/admin/setup', { body: {} }), 401, { error: 'No token' });
      expectError(await call('GET', '/api/admin/health-summary'), 401, { error: 'No token' });
    });

    it('401: refused credentials answer {success:false,error}', async () => {
      const email = `wrong-password-${randomUUID()}@test.local`;
      const member = await t.member('student', { email });
      expectError(
        await call('POST', '/api/auth/login', { body: { email, password: 'not-the-password' } }),
        401,
        {
          success: false,
          error: 'Invalid email or password',
        },
      );
      expectError(
        await call('POST', '/api/auth/password', {
          token: member.token,
          body: { currentPassword: 'not-the-password', newPassword: 'a-new-password-1' },
        }),
        401,
        { success: false, error: 'Current password is incorrect' },
      );
      const forged = await call('POST', '/api/auth/idp', {
        body: { token: idp.idToken({}, { kid: 'unknown-key' }) },
      });
      expect([forged.status, forged.body.success]).toEqual([401, false]);
    });

    it('403: the role guard answers {"error":"Forbidden"}', async () => {
      const forbidden = { error: 'Forbidden' };
      const expense = { category: 'Gas', amount: 10, description: 'x', date: '2024-10-02' };
      expectError(
        await call('POST', '/api/expenses', { token: student.token, body: expense }),
        403,
        forbidden,
      );
      expectError(
        await call('POST', '/api/meals', {
          token: student.token,
          body: { date: '2024-10-02', mealType: 'Lunch', dishes: ['Rice'] },
        }),
        403,
        forbidden,
      );
      expectError(
        await call('POST', '/api/attendance/bulk', {
          token: student.token,
          body: { date: '2024-10-02', mealType: 'Lunch', marks: [{ userId: student.id, status: 'present' }] },
        }),
        403,
        forbidden,
      );
      expectError(await call('GET', '/api/users', { token: manager.token }), 403, forbidden);
      expectError(await call('GET', '/api/analytics/expenses', { token: student.token }), 403, forbidden);
      expectError(await call('GET', '/api/admin/health-summary', { token: treasurer.token }), 403, forbidden);
    });

    it('403: ownership rules and pending accounts answer {success:false,error}', async () => {
      const created = await call('POST', '/api/expenses', {
        token: manager.token,
        body: { category: 'Gas', amount: 125.5, description: 'Cylinder', date: '2024-10-03' },
      });
      expect(created.status).toBe(201);
      const id = created.body.expense._id as string;
      const body = { category: 'Gas', amount: 99, description: 'Cylinder', date: '2024-10-03' };
      expectError(
        await call('PUT', '/api/expenses/{id}', { token: treasurer.token, params: { id }, body }),
        403,
        {
          success: false,
          error: 'You can only change your own expenses',
        },
      );
      expectError(
        await call('DELETE', '/api/expenses/{id}', { token: treasurer.token, params: { id } }),
        403,
        {
          success: false,
          error: 'You can only change your own expenses',
        },
      );
      expectError(
        await call('PUT', '/api/users/{id}', {
          token: student.token,
          params: { id: other.id },
          body: { fullName: 'Someone else' },
        }),
        403,
        { success: false, error: 'You can only edit your own profile' },
      );
      expectError(
        await call('GET', '/api/users/{id}', { token: student.token, params: { id: other.id } }),
        403,
        {
          success: false,
          error: 'You can only view your own profile',
        },
      );
      expectError(
        await call('POST', '/api/attendance', {
          token: student.token,
          body: { date: '2024-10-03', mealType: 'Lunch', status: 'present', userId: other.id },
        }),
        403,
        { success: false, error: 'You can only mark your own attendance' },
      );
      const email = `pending-${randomUUID()}@test.local`;
      const registered = await call('POST', '/api/auth/register', {
        body: {
          email,
          password: 'pending-pass-1',
          fullName: 'Pending',
          collegeId: 'P1',
          room: 'R',
          phone: '9000000001',
        },
      });
      expect(registered.status).toBe(201);
      expectError(
        await call('POST', '/api/auth/login', { body: { email, password: 'pending-pass-1' } }),
        403,
        {
          success: false,
          error: 'Account pending approval',
        },
      );
    });

    it('400: bad bodies, queries and ids answer {success:false,error,details}', async () => {
      const bad = await call('POST', '/api/expenses', {
        token: manager.token,
        body: { category: 'Gas', amount: -5, date: '2024-13-01', extra: 1 },
      });
      expect([bad.status, bad.body.error, bad.body.details.length > 1]).toEqual([
        400,
        'Validation failed',
        true,
      ]);
      expect((await call('POST', '/api/auth/register', { body: {} })).status).toBe(400);
      expect(
        (await call('GET', '/api/expenses', { token: student.token, query: { limit: '1000' } })).status,
      ).toBe(400);
      expectError(
        await call('GET', '/api/expenses/{id}', { token: student.token, params: { id: 'nope' } }),
        400,
        {
          success: false,
          error: 'Invalid id: expected a UUID',
        },
      );
      const malformed = await call('POST', '/api/meals', {
        token: manager.token,
        body: '{"date": ',
        headers: { 'content-type': 'application/json' },
      });
      expect([malformed.status, malformed.body.success]).toEqual([400, false]);
    });

    it('404: unknown ids answer {success:false,error}', async () => {
      const id = randomUUID();
      expectError(await call('GET', '/api/expenses/{id}', { token: student.token, params: { id } }), 404, {
        success: false,
        error: 'Expense not found',
      });
      expectError(await call('DELETE', '/api/meals/{id}', { token: manager.token, params: { id } }), 404, {
        success: false,
        error: 'Meal not found',
      });
      expectError(
        await call('PUT', '/api/attendance/{id}', {
          token: student.token,
          params: { id },
          body: { status: 'absent' },
        }),
        404,
        { success: false, error: 'Attendance record not found' },
      );
      expectError(
        await call('PUT', '/api/feedback/{id}', {
          token: student.token,
          params: { id },
          body: { rating: 3 },
        }),
        404,
        { success: false, error: 'Feedback not found' },
      );
      expectError(await call('PUT', '/api/users/{id}/approve', { token: admin, params: { id } }), 404, {
        success: false,
        error: 'User not found',
      });
      expectError(
        await call('POST', '/api/auth/login', {
          body: { email: `nobody-${id}@test.local`, password: 'whatever-1' },
        }),
        404,
        { success: false, error: 'User not found' },
      );
    });

    it('409: unique conflicts answer {success:false,error}', async () => {
      const conflict = async (method: string, path: string, options: Parameters<typeof call>[2]) => {
        const res = await call(method, path, options);
        expect([method, path, res.status, res.body.success]).toEqual([method, path, 409, false]);
        return res.body.error as string;
      };
      const register = {
        email: student.email,
        password: 'another-pass-1',
        fullName: 'Again',
        collegeId: 'C',
        room: 'R',
        phone: '9000000002',
      };
      expect(await conflict('POST', '/api/auth/register', { body: register })).toBe(
        'Email already registered',
      );
      expect(
        await conflict('POST', '/api/auth/admin/setup', {
          token: admin,
          body: {
            messName: 'Again',
            email: 'mess@college.edu',
            phone: '+91-8012345678',
            expenseCategories: ['Gas'],
            mealTimes: [{ name: 'Lunch', startTime: '12:30', endTime: '14:30' }],
          },
        }),
      ).toBe('The mess is already set up');
      const menu = { date: '2024-10-04', mealType: 'Dinner', dishes: ['Dal', 'Rice'] };
      expect((await call('POST', '/api/meals', { token: manager.token, body: menu })).status).toBe(201);
      expect(await conflict('POST', '/api/meals', { token: manager.token, body: menu })).toBe(
        'A menu for this date and meal type already exists',
      );
      const feedback = { date: '2024-10-04', mealType: 'Dinner', rating: 4 };
      expect((await call('POST', '/api/feedback', { token: student.token, body: feedback })).status).toBe(
        201,
      );
      expect(await conflict('POST', '/api/feedback', { token: student.token, body: feedback })).toMatch(
        /already given feedback/,
      );
      const adminId = (await call('GET', '/api/auth/verify', { token: admin })).body.user._id as string;
      expect(await conflict('PUT', '/api/users/{id}/reject', { token: admin, params: { id: adminId } })).toBe(
        'You cannot reject your own account',
      );
    });

    it('409: writes to a closed month answer the closed-month text on every documented route', async () => {
      const month = '2024-11';
      const expense = await call('POST', '/api/expenses', {
        token: manager.token,
        body: { category: 'Groceries', amount: 500, description: 'Rice', date: `${month}-05` },
      });
      expect(expense.status).toBe(201);
      const mark = await call('POST', '/api/attendance', {
        token: student.token,
        body: { date: `${month}-05`, mealType: 'Lunch', status: 'present' },
      });
      expect(mark.status).toBe(201);
      const closed = await call('POST', '/api/analytics/months/{month}/close', {
        token: treasurer.token,
        params: { month },
      });
      expect(closed.status).toBe(200);
      const text = MONTH_CLOSED.replace('2025-03', month);
      const frozen = { success: false, error: text };
      const expenseId = { id: expense.body.expense._id as string };
      const expenseBody = { category: 'Groceries', amount: 600, description: 'Rice', date: `${month}-05` };
      expectError(
        await call('POST', '/api/expenses', { token: manager.token, body: expenseBody }),
        409,
        frozen,
      );
      expectError(
        await call('PUT', '/api/expenses/{id}', {
          token: manager.token,
          params: expenseId,
          body: expenseBody,
        }),
        409,
        frozen,
      );
      expectError(
        await call('DELETE', '/api/expenses/{id}', { token: manager.token, params: expenseId }),
        409,
        frozen,
      );
      expectError(
        await call('POST', '/api/attendance', {
          token: student.token,
          body: { date: `${month}-05`, mealType: 'Lunch', status: 'absent' },
        }),
        409,
        frozen,
      );
      expectError(
        await call('PUT', '/api/attendance/{id}', {
          token: student.token,
          params: { id: mark.body.attendance._id as string },
          body: { status: 'absent' },
        }),
        409,
        frozen,
      );
      expectError(
        await call('POST', '/api/attendance/bulk', {
          token: manager.token,
          body: { date: `${month}-06`, mealType: 'Dinner', marks: [{ userId: other.id, status: 'present' }] },
        }),
        409,
        frozen,
      );
      expectError(
        await call('POST', '/api/analytics/months/{month}/close', {
          token: treasurer.token,
          params: { month },
        }),
        409,
        { success: false, error: `Month ${month} is already closed` },
      );
    });

    it('413: an oversized body answers {success:false,error}, with or without a token', async () => {
      const huge = 'x'.repeat(200 * 1024);
      const tooLarge = { success: false, error: 'Request body is too large' };
      expectError(await call('POST', '/api/auth/register', { body: { fullName: huge } }), 413, tooLarge);
      expectError(
        await call('POST', '/api/expenses', { token: manager.token, body: { description: huge } }),
        413,
        tooLarge,
      );
      expectError(
        await call('PUT', '/api/users/{id}', {
          token: student.token,
          params: { id: student.id },
          body: { fullName: huge },
        }),
        413,
        tooLarge,
      );
    });

    it('429: the rate limiter answers {success:false,error} with Retry-After', async () => {
      const body = { email: `throttled-${randomUUID()}@test.local`, password: 'whatever-1' };
      let res: Response | undefined;
      for (let i = 0; i < 8 && res?.status !== 429; i += 1)
        res = await call('POST', '/api/auth/login', { body });
      expectError(res!, 429, { success: false, error: 'Too many requests; try again later' });
      expect(Number(res!.headers['retry-after'])).toBeGreaterThan(0);
      expect(doc.paths['/api/auth/login'].post.responses['429'].headers).toHaveProperty('Retry-After');
    });

    it('drove every class of error answer', () => {
      expect([...seen].sort()).toEqual(
        expect.arrayContaining([
          '400 envelope',
          '401 guard',
          '401 envelope',
          '403 guard',
          '403 envelope',
          '404 envelope',
          '409 envelope',
          '413 envelope',
          '429 envelope',
        ]),
      );
      expect([...seen].filter((s) => s.endsWith('guard')).sort()).toEqual(['401 guard', '403 guard']);
    });
  });
});
