import SwaggerParser from '@apidevtools/swagger-parser';
import { RequestMethod } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { IS_PUBLIC } from '../../src/common/auth/auth.decorators';
import { TestApp } from '../support/app';

/** Every route the controllers declare, as `METHOD /api/path/{param}`, and whether it is @Public(). */
function declaredRoutes(t: TestApp): { route: string; isPublic: boolean }[] {
  const routes: { route: string; isPublic: boolean }[] = [];
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
      routes.push({ route: `${RequestMethod[method]} ${full}`, isPublic });
    }
  }
  return routes.sort((a, b) => a.route.localeCompare(b.route));
}

describe('API documentation', () => {
  let t: TestApp;
  let doc: any;
  beforeAll(async () => {
    t = await TestApp.start();
    doc = (await t.get('/docs.json')).body;
  });
  afterAll(() => t.close());

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
      expect([route, isPublic ? undefined : [{ bearer: [] }]]).toEqual([route, op.security]);
    }
  });

  it('serves the interactive page', async () => {
    const page = await t.get('/docs');
    expect(page.status).toBe(200);
    expect(String(page.headers['content-type'])).toContain('text/html');
    expect(page.body).toContain('swagger-ui');
  });
});
