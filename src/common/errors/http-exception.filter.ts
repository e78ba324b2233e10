import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
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
    // A rate limit (429) or a full work queue (503) says when to come back.
    if (exception instanceof HttpException) {
      const retryAfter = (exception.getResponse() as { retryAfter?: number }).retryAfter;
      if (retryAfter) void reply.header('retry-after', String(retryAfter));
    }
    void reply.status(status).send(body);
  }

  describe(exception: unknown, request?: FastifyRequest): { status: number; body: ErrorBody } {
    if (exception instanceof GuardError || exception instanceof RawBodyError) {
      return { status: exception.getStatus(), body: exception.getResponse() as ErrorBody };
    }
    // Raised by Fastify before a route runs (body too large, malformed JSON, unsupported media type). Nest's
    // adapter hands them over wrapped in an HttpException carrying Fastify's own text, with the error as `cause`.
    const fastifyError = fastifyErrorOf(exception);
    if (fastifyError) {
      const status = fastifyError.statusCode;
      return { status, body: { success: false, error: describeFastifyError(fastifyError) } };
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
    const translated = translateDatabaseError(exception);
    if (translated) return { status: translated.getStatus(), body: translated.getResponse() as ErrorBody };

    this.logger.error(
      { err: logSafeError(exception), reqId: request?.id, method: request?.method, url: request?.url },
      'Unhandled error',
    );
    return { status: 500, body: { success: false, error: 'Internal server error' } };
  }
}

interface FastifyError {
  code: string;
  statusCode: number;
  message?: string;
}

function fastifyErrorOf(exception: unknown): FastifyError | undefined {
  for (const candidate of [exception, (exception as { cause?: unknown } | undefined)?.cause]) {
    const error = candidate as Partial<FastifyError> | undefined;
    if (
      typeof error?.code === 'string' &&
      error.code.startsWith('FST_') &&
      typeof error.statusCode === 'number' &&
      error.statusCode < 500
    ) {
      return error as FastifyError;
    }
  }
  return undefined;
}

function describeFastifyError(error: FastifyError): string {
  if (error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return 'Request body is empty; send a JSON object';
  switch (error.statusCode) {
    case 413:
      return 'Request body is too large';
    case 415:
      return 'Unsupported content type; send application/json';
    case 400:
      return 'Malformed request body';
    default:
      return error.message ?? 'Bad request';
  }
}

function describeHttpResponse(response: string | object, fallback: string): string {
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (typeof message === 'string') return message;
  if (Array.isArray(message)) return message.join('; ');
  return fallback;
}
