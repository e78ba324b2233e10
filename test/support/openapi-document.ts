import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService } from '@nestjs/core';
import Ajv, { type ValidateFunction } from 'ajv';
import { IS_PUBLIC, PERMISSION } from '../../src/common/auth/auth.decorators';
import { messSetup, RequestOptions, Response, TestApp } from './app';
import { LocalIdentityProvider } from './idp';

// What the API documentation e2e files share (test/e2e/docs-*.e2e-spec.ts): the routes the controllers declare, the
// document turned into JSON Schemas, and an app whose every answer is checked against the document.
export interface DeclaredRoute {
  route: string;
  isPublic: boolean;
  /** Behind @Roles(…): the guard may answer 403 {"error":"Forbidden"}. */
  hasRoles: boolean;
}

/** Every route the controllers declare, as `METHOD /api/path/{param}`, whether it is @Public() or has @Roles(). */
export function declaredRoutes(t: TestApp): DeclaredRoute[] {
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
export const EXACT_SCHEMAS = new Set(['GuardErrorDto', 'ErrorResponseDto', 'FieldErrorDto']);

/** OpenAPI 3.0 schema → JSON Schema for ajv: `nullable` becomes a null type, refs point into one `doc` schema. */
export function toJsonSchema(node: any): any {
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
export class DocumentValidator {
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
export function topRefs(schema: any): string[] {
  const refs = schema?.oneOf ?? schema?.anyOf ?? [schema];
  return refs
    .map((s: any) =>
      String(s?.$ref ?? '')
        .split('/')
        .pop(),
    )
    .filter(Boolean);
}

export const ERROR_STATUS = /^[45]\d\d$/;

export type Member = Awaited<ReturnType<TestApp['member']>>;

export interface DocumentedApp {
  t: TestApp;
  /** GET /docs.json */
  doc: any;
  validator: DocumentValidator;
  /** Signs the identity-provider tokens the app accepts (and forged ones). */
  idp: LocalIdentityProvider;
}

/** The app with a local identity provider configured, and the document it serves. Close with closeDocumentedApp. */
export async function startDocumentedApp(): Promise<DocumentedApp> {
  const idp = new LocalIdentityProvider();
  await idp.start();
  const t = await TestApp.start({
    IDP_CLIENT_ID: idp.clientId,
    IDP_CERTS_URL: idp.certsUrl,
    // Low enough for the 429 of docs-errors; every other login in those files uses its own email.
    LOGIN_RATE_LIMIT_PER_EMAIL: '5',
  });
  const doc = (await t.get('/docs.json')).body;
  return { t, doc, validator: new DocumentValidator(doc), idp };
}

export async function closeDocumentedApp(app: Partial<DocumentedApp>): Promise<void> {
  await app.t?.close();
  await app.idp?.stop();
}

export type CallOptions = RequestOptions & {
  params?: Record<string, string>;
  query?: Record<string, string>;
};

/**
 * Sends a real request and checks the answer against the document: its status must be documented for that
 * operation and its body must match the schema declared for that status. Adds each error's (status, body shape) to
 * `seen`.
 */
export async function callDocumented(
  { t, validator }: Pick<DocumentedApp, 't' | 'validator'>,
  seen: Set<string>,
  method: string,
  template: string,
  options: CallOptions = {},
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
    const shape = res.body && typeof res.body === 'object' && 'success' in res.body ? 'envelope' : 'guard';
    seen.add(`${res.status} ${shape}`);
  }
  return res;
}

export const expectError = (res: Response, status: number, body: object) =>
  expect([res.status, res.body]).toEqual([status, body]);

/** The members the answers are checked with, and the mess set up (through `call`, so checked too). */
export async function documentedMess(
  t: TestApp,
  call: (method: string, template: string, options?: CallOptions) => Promise<Response>,
): Promise<{ admin: string; student: Member; other: Member; manager: Member; treasurer: Member }> {
  const admin = await t.adminToken();
  const student = await t.member('student');
  const other = await t.member('student');
  const manager = await t.member('manager');
  const treasurer = await t.member('treasurer');
  const setup = await call('POST', '/api/auth/admin/setup', {
    token: admin,
    body: messSetup(),
  });
  expect(setup.status).toBe(200);
  return { admin, student, other, manager, treasurer };
}
