import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { badRequest, type FieldError } from '../errors/api-error';
import { EMPTY_JSON_BODY, queryProblems } from './request-parsing';

interface Reads {
  query: boolean;
  body: boolean;
}

/** Whether a handler reads its query string and its body (`@Query()`, `@Body()`), worked out once per handler. */
const readsOf = new WeakMap<object, Reads>();

function handlerReads(context: ExecutionContext): Reads {
  const handler = context.getHandler();
  let reads = readsOf.get(handler);
  if (reads === undefined) {
    const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ?? {}) as object;
    const types = new Set(Object.keys(args).map((key) => key.split(':')[0]));
    reads = {
      query: types.has(String(RouteParamtypes.QUERY)),
      body: types.has(String(RouteParamtypes.BODY)),
    };
    readsOf.set(handler, reads);
  }
  return reads;
}

const namesOf = (input: unknown): string[] =>
  input && typeof input === 'object' && !Array.isArray(input) ? Object.keys(input) : [];

/**
 * Input a route does not read is refused like an unknown field (400 naming each), instead of being ignored:
 * query parameters on a route that takes none (`GET /auth/verify?page=1&page=2`), and fields in the body of a
 * body-less action (`PUT /users/:id/approve` with `{"unexpected": true}`). An empty body, `{}` or no body at all
 * is what a body-less action expects, whatever the content type. Routes with a `@Query()` or `@Body()` DTO are left
 * to the validation pipe, which refuses unknown fields already. What the query parser set aside (a prototype name, a
 * malformed value) is refused here too: on a route without a query DTO no pipe would answer for it.
 */
@Injectable()
export class UnreadInputGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ query?: unknown; body?: unknown }>();
    const queryNames = namesOf(request.query);
    const setAside = queryProblems(request.query);
    const body = request.body;
    const bodyNames = body === EMPTY_JSON_BODY ? [] : namesOf(body);
    const bodyIsValue =
      body !== undefined && body !== EMPTY_JSON_BODY && (typeof body !== 'object' || Array.isArray(body));
    if (!queryNames.length && !setAside.length && !bodyNames.length && !bodyIsValue) return true;
    const reads = handlerReads(context);
    const problems: FieldError[] = [];
    if (!reads.query) {
      for (const field of queryNames)
        problems.push({ field, message: `${field} is not an accepted query parameter` });
      problems.push(...setAside);
    }
    if (!reads.body) {
      for (const field of bodyNames) problems.push({ field, message: `${field} is not an accepted field` });
      if (bodyIsValue) problems.push({ field: 'body', message: 'this action takes no body' });
    }
    if (problems.length) throw badRequest('Validation failed', problems);
    return true;
  }
}
