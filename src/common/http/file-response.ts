import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import { map, Observable } from 'rxjs';

/** A download: its media type, the file name a browser saves it under, and its bytes or text (or a stream of them). */
export class FileResponse {
  constructor(
    readonly contentType: string,
    readonly fileName: string,
    readonly body: string | Buffer | Readable,
  ) {}
}

/**
 * Sends a handler's `FileResponse` with its `Content-Type` and a `Content-Disposition: attachment` file name, so
 * handlers choose them per request without taking the reply object (`@Res()`). Other results pass through.
 */
@Injectable()
export class FileResponseInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      map((result: unknown) => {
        if (!(result instanceof FileResponse)) return result;
        const reply = context.switchToHttp().getResponse<FastifyReply>();
        // ASCII names only (built from months and ids), so the plain quoted form is enough.
        void reply
          .header('content-type', result.contentType)
          .header('content-disposition', `attachment; filename="${result.fileName}"`);
        return result.body;
      }),
    );
  }
}
