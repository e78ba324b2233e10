import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { map, Observable } from 'rxjs';

/** What an upserting handler returns: the body, and whether the write created the record. */
export class Upserted<T> {
  constructor(
    readonly created: boolean,
    readonly body: T,
  ) {}
}

/**
 * Answers 201 when an upsert created its record and 200 when it changed or re-stated one, so handlers choose
 * the status without taking the reply object (`@Res()`).
 */
@Injectable()
export class UpsertStatusInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      map((result: unknown) => {
        if (!(result instanceof Upserted)) return result;
        void context
          .switchToHttp()
          .getResponse<FastifyReply>()
          .status(result.created ? 201 : 200);
        return result.body as unknown;
      }),
    );
  }
}
