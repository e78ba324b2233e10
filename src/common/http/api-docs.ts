import { applyDecorators } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import {
  errorBody,
  type ErrorExample,
  exampleKey,
  retryAfter,
  serviceDescriptions,
  VALIDATION_EXAMPLE,
} from './error-examples';

export type { ErrorExample } from './error-examples';

/* What a route documents of its answers: the error bodies' DTOs, the texts several routes share, and the decorators
 * (ApiErrors, ApiAuth, ApiRoleAuth) that document a route's error answers with the examples it really sends. */

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

/**
 * A status a route can answer with an `{success: false, error}` body, optionally with the texts it really sends
 * (they become the documented examples): `404` or `[404, 'Expense not found']`.
 */
export type ErrorSpec = number | readonly [number, ...ErrorExample[]];

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

const guardExamples = { 401: ['No token', 'Invalid token'], 403: ['Forbidden'] } as const;
const guardDescriptions = {
  401: 'Guard: no token, or an invalid, expired or revoked token; the body is exactly `{"error":"No token"}` or `{"error":"Invalid token"}`',
  403: 'Guard: the caller lacks the role; the body is exactly `{"error":"Forbidden"}`',
} as const;

type GuardStatus = keyof typeof guardExamples;

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
