import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { requestContext } from './request-context';

/**
 * Runs each HTTP handler inside its request context. An interceptor rather than a Fastify `onRequest` hook: the
 * hook's context does not survive body parsing (the body's stream events arrive in the socket's async context),
 * while Nest binds the handler's scope at `next.handle()`, which is called here inside `run`.
 */
@Injectable()
export class RequestContextInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const { id } = context.switchToHttp().getRequest<{ id?: unknown }>();
    if (typeof id !== 'string') return next.handle();
    return requestContext.run({ requestId: id }, () => next.handle());
  }
}
