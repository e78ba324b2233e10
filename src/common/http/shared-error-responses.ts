import { getSchemaPath, type OpenAPIObject } from '@nestjs/swagger';
import { DATABASE_UNAVAILABLE } from '../errors/database-errors';
import { ErrorResponseDto, INVALID_ID, TOO_LARGE, TOO_MANY } from './api-docs';
import {
  errorBody,
  type ErrorExample,
  exampleKey,
  retryAfter,
  serviceDescriptions,
  UNSUPPORTED_TYPE,
  VALIDATION_EXAMPLE,
} from './error-examples';
import { CHARSET_UNSUPPORTED } from './request-parsing';

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
 * every route that takes a body; the malformed-id 400 on every route with an `{id}`; the stray-query 400 on every route
 * that takes no query parameters.
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
      if (!op.parameters?.some((p) => p.in === 'query')) addStrayQuery(op);
    }
  }
  return document;
}

const STRAY_QUERY = 'A query parameter on a route that takes none';
const STRAY_QUERY_EXAMPLE = {
  error: 'Validation failed',
  details: [{ field: 'page', message: 'page is not an accepted query parameter' }],
};

/** A route without query parameters refuses any (UnreadInputGuard): a 400 naming each. */
function addStrayQuery(op: OperationLike): void {
  op.responses['400'] ??= sharedResponse(serviceDescriptions[400], []);
  const json = op.responses['400'].content?.['application/json'];
  if (!json) return;
  json.examples ??= {};
  json.examples[exampleKey(STRAY_QUERY, json.examples)] = {
    summary: STRAY_QUERY,
    value: errorBody(STRAY_QUERY_EXAMPLE),
  };
}
