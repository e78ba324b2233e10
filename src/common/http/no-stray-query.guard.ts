import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { badRequest } from '../errors/api-error';

/** Whether a handler reads its query string (has a `@Query()` argument), worked out once per handler. */
const readsQuery = new WeakMap<object, boolean>();

function handlerReadsQuery(context: ExecutionContext): boolean {
  const handler = context.getHandler();
  let known = readsQuery.get(handler);
  if (known === undefined) {
    const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ?? {}) as object;
    known = Object.keys(args).some((key) => key.split(':')[0] === String(RouteParamtypes.QUERY));
    readsQuery.set(handler, known);
  }
  return known;
}

/**
 * A query parameter on a route that takes none is refused like an unknown body field (400 naming each), instead
 * of being ignored: `GET /auth/verify?page=1&page=2` is as wrong as a repeated parameter is elsewhere. Routes with
 * a `@Query()` DTO are left to the validation pipe, which refuses unknown and repeated ones already.
 */
@Injectable()
export class NoStrayQueryGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const query = context.switchToHttp().getRequest<{ query?: Record<string, unknown> }>().query;
    if (!query) return true;
    const names = Object.keys(query);
    if (!names.length || handlerReadsQuery(context)) return true;
    throw badRequest(
      'Validation failed',
      names.map((field) => ({ field, message: `${field} is not an accepted query parameter` })),
    );
  }
}
