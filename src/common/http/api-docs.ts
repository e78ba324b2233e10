import { applyDecorators } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  getSchemaPath,
  type OpenAPIObject,
} from '@nestjs/swagger';
import { DATABASE_UNAVAILABLE } from '../errors/database-errors';
import { CHARSET_UNSUPPORTED } from './request-parsing';

export class FieldErrorDto {
  @ApiProperty({ example: 'category' }) field: string;
  @ApiProperty({ example: 'category must be one of the configured expense categories' }) message: string;
}

/** Every error but the guards': `{success: false, error, details?}`. */
export class ErrorResponseDto {
  @ApiProperty({ enum: [false], example: false }) success: false;
  @ApiProperty({ example: 'Validation failed' }) error: string;
  @ApiPropertyOptional({ type: [FieldErrorDto], description: 'One entry per bad field (400 only)' })
  details?: FieldErrorDto[];
  @ApiPropertyOptional({
    format: 'uuid',
    description:
      'A 409 for a taken place (a menu slot, a second feedback): the id of the record that holds it',
    example: '0193a5e4-7c1a-7c9e-9d3b-4a1f2e3d4c5b',
  })
  existingId?: string;
}

/** The contract's bare guard bodies: 401 `No token` / `Invalid token`, 403 `Forbidden`. */
export class GuardErrorDto {
  @ApiProperty({ enum: ['No token', 'Invalid token', 'Forbidden'], example: 'Invalid token' }) error: string;
}

export class MessageDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ example: 'Done' }) message: string;
}

/** The closed-month trigger's answer (409) to any write of a frozen month's expenses or attendance. */
export const MONTH_CLOSED = 'Month 2025-03 is closed: its bill is frozen. An admin can reopen it.';
export const INVALID_ID = 'Invalid id: expected a UUID';
export const TOO_LARGE = 'Request body is too large';
export const TOO_MANY = 'Too many requests; try again later';

/** What an error answer's body says: its `error` text, and `details` for a 400 or `existingId` for a 409. */
export type ErrorExample =
  | string
  | { error: string; details: { field: string; message: string }[] }
  | { error: string; existingId: string };

/**
 * A status a route can answer with an `{success: false, error}` body, optionally with the texts it really sends
 * (they become the documented examples): `404` or `[404, 'Expense not found']`.
 */
export type ErrorSpec = number | readonly [number, ...ErrorExample[]];

const UNSUPPORTED_TYPE = 'Unsupported content type; send application/json';

const VALIDATION_EXAMPLE = {
  error: 'Validation failed',
  details: [{ field: 'extra', message: 'extra is not an accepted field' }],
} satisfies ErrorExample;

/** Used when a route names a status without saying what it answers. */
const defaultExamples: Record<number, ErrorExample[]> = {
  400: [VALIDATION_EXAMPLE],
  401: ['Invalid email or password'],
  403: ['You can only change your own records'],
  404: ['Not found'],
  409: ['A record with these values already exists'],
  413: [TOO_LARGE],
  429: [TOO_MANY],
  503: ['A dependency is unavailable'],
};

const serviceDescriptions: Record<number, string> = {
  400: 'Invalid input: `details` has one entry per bad field; a malformed id or JSON body says so in `error`',
  401: 'Refused credentials',
  403: 'Not allowed: the caller does not own the record, or the account is not approved',
  404: 'Not found',
  409: 'Conflicts with existing data or with a closed month',
  413: 'Request body too large',
  429: 'Too many requests; wait for the seconds in Retry-After',
  503: 'A dependency is unavailable, or the service is too busy (then with Retry-After)',
};

const guardExamples = { 401: ['No token', 'Invalid token'], 403: ['Forbidden'] } as const;
const guardDescriptions = {
  401: 'Guard: no token, or an invalid, expired or revoked token; the body is exactly `{"error":"No token"}` or `{"error":"Invalid token"}`',
  403: 'Guard: the caller lacks the role; the body is exactly `{"error":"Forbidden"}`',
} as const;

const retryAfter = {
  'Retry-After': { description: 'Seconds until a request is accepted again', schema: { type: 'integer' } },
};

type GuardStatus = keyof typeof guardExamples;

const exampleKey = (text: string, taken: Record<string, unknown>): string => {
  const base =
    text
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60) || 'example';
  let key = base;
  for (let n = 2; key in taken; n += 1) key = `${base}-${n}`;
  return key;
};

const errorBody = (example: ErrorExample) =>
  typeof example === 'string' ? { success: false, error: example } : { success: false, ...example };

/** Collects the route's specs per status, keeping the texts in order (a status may be named more than once). */
function byStatus(specs: readonly ErrorSpec[]): Map<number, ErrorExample[]> {
  const out = new Map<number, ErrorExample[]>();
  for (const spec of specs) {
    const [status, ...texts] = typeof spec === 'number' ? [spec] : spec;
    out.set(status, [...(out.get(status) ?? []), ...texts]);
  }
  return out;
}

/**
 * One response per status: `{success:false,…}` for what the route itself answers, the bare guard body for what the
 * guard answers, and `oneOf` both where both can happen; each with the examples it really sends.
 */
function errorResponses(specs: readonly ErrorSpec[], guard: readonly GuardStatus[]) {
  const service = byStatus(specs);
  const statuses = [...new Set([...service.keys(), ...guard])].sort((a, b) => a - b);
  return statuses.map((status) => {
    const fromGuard = (guard as readonly number[]).includes(status);
    const texts = service.get(status);
    const examples: Record<string, { summary: string; value: object }> = {};
    const descriptions: string[] = [];
    if (fromGuard) {
      for (const error of guardExamples[status as GuardStatus])
        examples[exampleKey(error, examples)] = { summary: `Guard: ${error}`, value: { error } };
      descriptions.push(guardDescriptions[status as GuardStatus]);
    }
    if (texts) {
      for (const example of texts.length ? texts : (defaultExamples[status] ?? ['Error'])) {
        const body = errorBody(example);
        examples[exampleKey(body.error, examples)] = { summary: body.error, value: body };
      }
      descriptions.push(serviceDescriptions[status] ?? 'Error');
    }
    const refs = [
      ...(fromGuard ? [{ $ref: getSchemaPath(GuardErrorDto) }] : []),
      ...(texts ? [{ $ref: getSchemaPath(ErrorResponseDto) }] : []),
    ];
    return ApiResponse({
      status,
      description: descriptions.join('. Or: '),
      schema: refs.length === 1 ? refs[0] : { oneOf: refs },
      examples,
      ...(status === 429 ? { headers: retryAfter } : {}),
    });
  });
}

/** Documents the `{success: false, error, details?}` answers a route gives (no guard involved). */
export const ApiErrors = (...specs: ErrorSpec[]) =>
  applyDecorators(ApiExtraModels(ErrorResponseDto, GuardErrorDto), ...errorResponses(specs, []));

/**
 * A route for any member with a bearer token: documents the token and the guard's 401, plus the route's own
 * answers. A 401 named here is the route's own (e.g. a wrong current password) and joins the guard's as `oneOf`.
 */
export const ApiAuth = (...specs: ErrorSpec[]) =>
  applyDecorators(
    ApiBearerAuth(),
    ApiExtraModels(ErrorResponseDto, GuardErrorDto),
    ...errorResponses(specs, [401]),
  );

/**
 * A route behind `@Allow(…)`: as ApiAuth, plus the guard's 403 `{"error":"Forbidden"}`. A 403 named here is the
 * route's own (an ownership rule) and joins the guard's as `oneOf`.
 */
export const ApiRoleAuth = (...specs: ErrorSpec[]) =>
  applyDecorators(
    ApiBearerAuth(),
    ApiExtraModels(ErrorResponseDto, GuardErrorDto),
    ...errorResponses(specs, [401, 403]),
  );

interface OperationLike {
  requestBody?: unknown;
  parameters?: { in?: string; name?: string }[];
  responses: Record<string, ResponseLike>;
}
interface ResponseLike {
  description: string;
  headers?: object;
  content?: Record<
    string,
    { schema?: object; examples?: Record<string, { summary?: string; value: unknown }> }
  >;
}

function sharedResponse(description: string, examples: ErrorExample[], headers?: object): ResponseLike {
  const named: Record<string, { summary: string; value: object }> = {};
  for (const example of examples) {
    const body = errorBody(example);
    named[exampleKey(body.error, named)] = { summary: body.error, value: body };
  }
  return {
    description,
    ...(headers ? { headers } : {}),
    content: {
      'application/json': { schema: { $ref: getSchemaPath(ErrorResponseDto) }, examples: named },
    },
  };
}

/** The probes (their own 503 report) and the routes that never wait on the database. */
const WITHOUT_DATABASE_503 = /^\/api\/(live|ready|health|metrics)(\/|$)/;
const DATABASE_503 =
  'The database is unreachable or did not answer within DB_QUERY_TIMEOUT_MS; retry after Retry-After seconds';

/** 503 `Database unavailable` with Retry-After, beside a route's own 503 answers if it has some. */
function addDatabaseUnavailable(op: OperationLike): void {
  const own = op.responses['503'];
  if (!own) {
    op.responses['503'] = sharedResponse(DATABASE_503, [DATABASE_UNAVAILABLE], retryAfter);
    return;
  }
  const json = own.content?.['application/json'];
  if (!json?.examples) return;
  json.examples[exampleKey(DATABASE_UNAVAILABLE, json.examples)] = {
    summary: DATABASE_UNAVAILABLE,
    value: errorBody(DATABASE_UNAVAILABLE),
  };
  own.description = `${own.description}. Or: ${DATABASE_503}`;
  own.headers = { ...(own.headers ?? {}), ...retryAfter };
}

/**
 * The answers every route of a kind can give, added to the document in one place so no route can forget them:
 * 429 everywhere (the rate limiter covers every route); 503 `Database unavailable` on every route that reads or writes
 * the database; 400 (malformed JSON, unknown fields), 413 and 415 on
 * every route that takes a body; the malformed-id 400 on every route with an `{id}`.
 */
export function addSharedErrorResponses(document: OpenAPIObject): OpenAPIObject {
  for (const [path, ops] of Object.entries(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const op = ops[method] as OperationLike | undefined;
      if (!op) continue;
      op.responses['429'] ??= sharedResponse(serviceDescriptions[429], [TOO_MANY], retryAfter);
      if (!WITHOUT_DATABASE_503.test(path)) addDatabaseUnavailable(op);
      if (op.requestBody) {
        op.responses['400'] ??= sharedResponse(serviceDescriptions[400], [VALIDATION_EXAMPLE]);
        op.responses['413'] ??= sharedResponse(
          `${serviceDescriptions[413]} (over BODY_LIMIT_BYTES, 100 KiB by default)`,
          [TOO_LARGE],
        );
        op.responses['415'] ??= sharedResponse(
          'The body is not JSON (text/plain, XML, multipart), or is declared in a charset other than UTF-8',
          [UNSUPPORTED_TYPE, CHARSET_UNSUPPORTED],
        );
      }
      if (op.parameters?.some((p) => p.in === 'path' && p.name === 'id')) {
        op.responses['400'] ??= sharedResponse(serviceDescriptions[400], []);
        const json = op.responses['400'].content?.['application/json'];
        if (json) {
          json.examples ??= {};
          // With no body and no query, the only 400 is the malformed id: drop the generic validation example.
          const validated = op.requestBody || op.parameters?.some((p) => p.in === 'query');
          if (!validated) delete json.examples[exampleKey(VALIDATION_EXAMPLE.error, {})];
          if (!Object.values(json.examples).some((e) => e.summary === INVALID_ID))
            json.examples[exampleKey(INVALID_ID, json.examples)] = {
              summary: INVALID_ID,
              value: errorBody(INVALID_ID),
            };
        }
      }
    }
  }
  return document;
}

/**
 * Each operation's `operationId`, by `Controller.method`: the names a generated client exposes (`listExpenses`,
 * `closeMonth`), so renaming a handler does not rename a client call. A handler not listed gets `method` +
 * resource (`AccountsController.list` → `listAccounts`) when its name is one word, else its own name; the document
 * refuses two operations with one id.
 */
const OPERATION_IDS: Record<string, string> = {
  'UsersController.list': 'listUsers',
  'UsersController.setPhone': 'setProfilePhone',
  'UsersController.get': 'getUser',
  'UsersController.update': 'updateUser',
  'UsersController.changeRole': 'changeUserRole',
  'UsersController.setDines': 'setUserDines',
  'UsersController.approve': 'approveUser',
  'UsersController.reject': 'rejectUser',
  'AuthController.register': 'register',
  'AuthController.login': 'login',
  'AuthController.loginWithIdp': 'loginWithIdp',
  'AuthController.logout': 'logout',
  'AuthController.verify': 'verifyToken',
  'AuthController.verifyAlias': 'verifyTokenAlias',
  'AuthController.changePassword': 'changePassword',
  'MessConfigController.setup': 'setupMess',
  'MessConfigController.read': 'getMessConfig',
  'MessConfigController.replace': 'replaceMessConfig',
  'AttendanceController.list': 'listAttendance',
  'AttendanceController.mark': 'markAttendance',
  'AttendanceController.markMany': 'markAttendanceBulk',
  'AttendanceController.changeStatus': 'changeAttendanceStatus',
  'FeedbackController.list': 'listFeedback',
  'FeedbackController.submit': 'submitFeedback',
  'FeedbackController.update': 'updateFeedback',
  'ExpensesController.list': 'listExpenses',
  'ExpensesController.create': 'createExpense',
  'ExpensesController.get': 'getExpense',
  'ExpensesController.replace': 'replaceExpense',
  'ExpensesController.remove': 'deleteExpense',
  'MealsController.list': 'listMeals',
  'MealsController.create': 'createMeal',
  'MealsController.get': 'getMeal',
  'MealsController.replace': 'replaceMeal',
  'MealsController.remove': 'deleteMeal',
  'AnalyticsController.expenses': 'getExpenseAnalytics',
  'AnalyticsController.attendance': 'getAttendanceAnalytics',
  'AnalyticsController.health': 'getMessHealth',
  'BillingController.shares': 'listShares',
  'BillingController.myShare': 'getMyShare',
  'BillingController.sharesCsv': 'downloadSharesCsv',
  'BillingController.months': 'listMonths',
  'BillingController.status': 'getMonthStatus',
  'BillingController.close': 'closeMonth',
  'BillingController.reopen': 'reopenMonth',
  'AccountsController.list': 'listAccounts',
  'AccountsController.me': 'getMyAccount',
  'AccountsController.get': 'getAccount',
  'AccountsController.statement': 'getStatement',
  'AccountsController.payment': 'recordPayment',
  'AccountsController.adjustment': 'recordAdjustment',
  'AccountsController.opening': 'recordOpeningBalance',
  'AccountsController.reverse': 'reverseEntry',
  'LeaveController.create': 'requestLeave',
  'LeaveController.list': 'listLeaves',
  'LeaveController.approve': 'approveLeave',
  'LeaveController.reject': 'rejectLeave',
  'LeaveController.cancel': 'cancelLeave',
  'ExtrasController.record': 'recordExtra',
  'ExtrasController.list': 'listExtras',
  'ExtrasController.remove': 'deleteExtra',
  'AttendanceController.pass': 'getMealPass',
  'AttendanceController.scan': 'scanMealPass',
  'AnalyticsController.headcount': 'getHeadcount',
  'NotificationsController.list': 'listNotifications',
  'NotificationsController.configCheck': 'checkNotificationConfig',
  'NotificationsController.sendTest': 'sendTestNotification',
  'NotificationsController.preferences': 'getNotificationPreferences',
  'NotificationsController.updatePreferences': 'updateNotificationPreferences',
  'NotificationsController.setChannel': 'setNotificationChannel',
  'HealthController.overall': 'getHealth',
  'HealthController.ready': 'getReadiness',
  'HealthController.live': 'getLiveness',
  'HealthController.db': 'getDatabaseHealth',
  'HealthController.cacheHealth': 'getCacheHealth',
  'HealthController.jobsHealth': 'getJobsHealth',
  'HealthController.metricsSnapshot': 'getMetrics',
  'HealthController.prometheus': 'getPrometheusMetrics',
  'HealthController.summary': 'getHealthSummary',
  'AuditController.list': 'listAuditEvents',
};

/** The `operationIdFactory` of the document: see OPERATION_IDS. */
export function operationId(controllerKey: string, methodKey: string): string {
  const listed = OPERATION_IDS[`${controllerKey}.${methodKey}`];
  if (listed) return listed;
  if (/[A-Z]/.test(methodKey)) return methodKey;
  return methodKey + controllerKey.replace(/Controller$/, '');
}

/** Descriptions for the success answers a route documents with a schema but no words (lint: no empty description). */
const successDescriptions: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '204': 'No content',
  '503': 'Not ready: the report names the dependency that failed',
};

/**
 * The last touches every operation needs, in one place: `security: []` on the public routes (a document-wide
 * default would otherwise be assumed), a description on every response, unique operation ids; and the guard's body
 * closed (`{"error"}` and nothing else), which is what makes it exclusive of the `{success:false,…}` envelope in a
 * `oneOf`.
 */
export function finishDocument(document: OpenAPIObject): OpenAPIObject {
  const ids = new Map<string, string>();
  for (const [path, ops] of Object.entries(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const op = ops[method];
      if (!op) continue;
      op.security ??= [];
      for (const [status, response] of Object.entries(op.responses) as [string, { description?: string }][])
        if (!response.description) response.description = successDescriptions[status] ?? `Status ${status}`;
      const where = `${method.toUpperCase()} ${path}`;
      if (!op.operationId) throw new Error(`${where} has no operationId`);
      const taken = ids.get(op.operationId);
      if (taken) throw new Error(`${where} and ${taken} share the operationId ${op.operationId}`);
      ids.set(op.operationId, where);
    }
  }
  typeNullableObjects(document);
  const guard = document.components?.schemas?.[GuardErrorDto.name] as
    { additionalProperties?: boolean } | undefined;
  if (guard) guard.additionalProperties = false;
  return document;
}

/**
 * `@ApiProperty({ type: SomeDto, nullable: true })` comes out as `{allOf: [{$ref}], nullable: true}`, which OpenAPI
 * 3.0 does not allow (`nullable` needs a `type` beside it; Redocly and openapi-typescript refuse the document). When
 * every schema referred to is an object, the `type: object` is added, which is what the property means.
 */
function typeNullableObjects(document: OpenAPIObject): void {
  const schemas = (document.components?.schemas ?? {}) as Record<string, { type?: string }>;
  const isObjectRef = (node: unknown) => {
    const ref = (node as { $ref?: string } | undefined)?.$ref;
    return typeof ref === 'string' && schemas[ref.split('/').pop()!]?.type === 'object';
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const schema = node as Record<string, unknown>;
    const branches = (schema.allOf ?? schema.oneOf ?? schema.anyOf) as unknown[] | undefined;
    if (
      schema.nullable === true &&
      schema.type === undefined &&
      branches?.length &&
      branches.every(isObjectRef)
    )
      schema.type = 'object';
    Object.values(schema).forEach(visit);
  };
  visit(document);
}

/** The document with every object's keys sorted (arrays keep their order): the committed file diffs cleanly. */
export function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
  );
}
