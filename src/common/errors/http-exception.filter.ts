import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GuardError, RawBodyError } from './api-error';
import { translateDatabaseError } from './database-errors';
import { logSafeError } from './log-safe-error';

export interface ErrorBody {
  success?: false;
  error: string;
  details?: unknown[];
}

/**
 * The one place that shapes error bodies. Guard failures keep the contract's bare `{error}`; everything else is
 * `{success: false, error, details?}`. Unknown failures are logged with the request id and answered with a
 * generic 500 that leaks no stack trace or SQL.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const { status, body } = this.describe(exception, request);
    if (status === HttpStatus.TOO_MANY_REQUESTS && exception instanceof HttpException) {
      const retryAfter = (exception.getResponse() as { retryAfter?: number }).retryAfter;
      if (retryAfter) void reply.header('retry-after', String(retryAfter));
    }
    void reply.status(status).send(body);
  }

  describe(exception: unknown, request?: FastifyRequest): { status: number; body: ErrorBody } {
    if (exception instanceof GuardError || exception instanceof RawBodyError) {
      return { status: exception.getStatus(), body: exception.getResponse() as ErrorBody };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const response = exception.getResponse();
      if (typeof response === 'object' && response && 'success' in response) {
        const {
          success: _success,
          retryAfter: _retry,
          ...rest
        } = response as ErrorBody & { retryAfter?: number };
        return { status, body: { success: false, ...rest } };
      }
      return { status, body: { success: false, error: describeHttpResponse(response, exception.message) } };
    }
    const fastifyError = exception as { statusCode?: number; code?: string; message?: string };
    if (
      typeof fastifyError?.code === 'string' &&
      fastifyError.code.startsWith('FST_') &&
      fastifyError.statusCode
    ) {
      // Raised by Fastify before a route runs: body too large, malformed JSON, unsupported media type.
      const status = fastifyError.statusCode;
      const error =
        status === 413
          ? 'Request body is too large'
          : status === 415
            ? 'Unsupported content type; send application/json'
            : status === 400
              ? 'Malformed request body'
              : (fastifyError.message ?? 'Bad request');
      return { status, body: { success: false, error } };
    }
    const translated = translateDatabaseError(exception);
    if (translated) return { status: translated.getStatus(), body: translated.getResponse() as ErrorBody };

    this.logger.error(
      { err: logSafeError(exception), reqId: request?.id, method: request?.method, url: request?.url },
      'Unhandled error',
    );
    return { status: 500, body: { success: false, error: 'Internal server error' } };
  }
}

function describeHttpResponse(response: string | object, fallback: string): string {
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (typeof message === 'string') return message;
  if (Array.isArray(message)) return message.join('; ');
  return fallback;
}
