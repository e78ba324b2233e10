import SwaggerParser from '@apidevtools/swagger-parser';
import { TestApp } from '../support/app';
import { LocalIdentityProvider } from '../support/idp';
import {
  CallOptions,
  callDocumented,
  closeDocumentedApp,
  declaredRoutes,
  documentedMess,
  DocumentValidator,
  ERROR_STATUS,
  type Member,
  startDocumentedApp,
  topRefs,
} from '../support/openapi-document';

/**
 * The OpenAPI document itself (valid, complete, saying what each kind of route may answer), and reads answering as
 * it documents them. Error answers: docs-errors.
 */
describe('API documentation: the document', () => {
  let t: TestApp;
  let doc: any;
  let validator: DocumentValidator;
  let idp: LocalIdentityProvider;
  beforeAll(async () => {
    ({ t, doc, validator, idp } = await startDocumentedApp());
  }, 120_000); // a cold start (migrations on the embedded engine) outlasts the default 30 s on a busy machine
  afterAll(() => closeDocumentedApp({ t, idp }));

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
    expect(Object.keys(doc.paths).length).toBeGreaterThan(0);
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
    const routes = declaredRoutes(t);
    expect(routes.length).toBeGreaterThan(0);
    for (const { route, isPublic } of routes) {
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
    expect(Object.keys(doc.paths).length).toBeGreaterThan(0);
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
    expect(Object.keys(doc.paths).length).toBeGreaterThan(0);
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
    /** Every (status, body shape) this suite saw (docs-errors proves each class of error was driven). */
    const seen = new Set<string>();
    let admin: string;
    let student: Member;
    let other: Member;
    let treasurer: Member;

    const call = (method: string, template: string, options?: CallOptions) =>
      callDocumented({ t, validator }, seen, method, template, options);

    beforeAll(async () => {
      ({ admin, student, other, treasurer } = await documentedMess(t, call));
    });

    // A role change over HTTP, so that the audit trail read below holds a change with a `before` and an `after`
    // (the fixture members are inserted already approved, with no audit row).
    beforeAll(async () => {
      const promoted = await t.member('student');
      expect((await t.put(`/users/${promoted.id}/role`, { role: 'manager' }, { token: admin })).status).toBe(
        200,
      );
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
      // A role change (before and after), the setup (before: null), the start-up admin (actor: null).
      const trail = await call('GET', '/api/audit', { token: treasurer.token, query: { limit: '100' } });
      expect(trail.body.events.map((e: { actor: unknown }) => e.actor)).toContain(null);
    });
  });
});
