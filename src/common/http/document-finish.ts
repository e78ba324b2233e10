import type { OpenAPIObject } from '@nestjs/swagger';
import { GuardErrorDto } from './api-docs';

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
  addMessParameter(document);
  leaveOutFixedExamplesOfReads(document);
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

/** A year, a month, a day, or a UUID: values that name something a given deployment may not have. */
const FIXED_VALUE =
  /^(\d{4}(-\d{2}(-\d{2})?)?|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/**
 * Swagger UI's "Try it out" pre-fills a read's query parameters with their examples. A fixed date (a month of 2025)
 * or id names nothing on a fresh deployment (an empty answer at best, a 404 at worst), so a read's query parameters
 * carry none: left empty, each read answers for now and for the caller. The DTOs keep their examples for bodies.
 */
function leaveOutFixedExamplesOfReads(document: OpenAPIObject): void {
  for (const ops of Object.values(document.paths)) {
    type Parameter = { in?: string; example?: unknown; schema?: { example?: unknown } };
    for (const parameter of (ops.get?.parameters ?? []) as Parameter[]) {
      if (parameter.in !== 'query') continue;
      if (FIXED_VALUE.test(String(parameter.example ?? ''))) delete parameter.example;
      if (parameter.schema && FIXED_VALUE.test(String(parameter.schema.example ?? ''))) {
        delete parameter.schema.example;
      }
    }
  }
}

/** Paths that do not act in a mess: the deployment's own (health, metrics, the list of messes) and signing in. */
const ACROSS_MESSES =
  /^\/api\/(health|live|ready|metrics|messes(\/\{mess\})?$|auth\/(login|idp|logout|password|verify)$|verify$|docs)/;

/**
 * Extension 2.2: every path that reads or writes a mess's records takes `mess` (an `_id` or a slug); without it
 * the request acts in the caller's own mess (an unauthenticated one, in the first mess). MessGuard reads it for
 * every route, so it is declared here once rather than on each route's query DTO.
 */
function addMessParameter(document: OpenAPIObject): void {
  document.components ??= {};
  document.components.parameters ??= {};
  document.components.parameters.Mess = {
    name: 'mess',
    in: 'query',
    required: false,
    description:
      "The mess to act in: an _id or a slug. Left out: the caller's own mess (unauthenticated: the first mess). " +
      'Naming another mess is 403 except for an admin, or for a member reading their own records (their account ' +
      'and statement, marks, share, extras, leave) of a mess they belonged to; unknown: 404.',
    // No example: "Try it out" would fill it on every route, and a slug such as `main` is gone once the first mess
    // is named; left empty, the request acts in the caller's own mess, which always exists.
    schema: { type: 'string' },
  };
  for (const [path, ops] of Object.entries(document.paths)) {
    if (ACROSS_MESSES.test(path)) continue;
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const op = ops[method];
      if (!op) continue;
      op.parameters = [...(op.parameters ?? []), { $ref: '#/components/parameters/Mess' }];
    }
  }
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
