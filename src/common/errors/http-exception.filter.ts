import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GuardError, RawBodyError } from './api-error';
import { DatabaseUnavailableError, translateDatabaseError } from './database-errors';
import { logSafeError } from './log-safe-error';
import { failureReason, Outages } from '../outages/outages';
import { lingerAfterAnswer } from '../http/client-errors';

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

  constructor(private readonly outages: Outages) {}

  /** A 503 because the database is away is part of its outage: counted there, not logged one by one. */
  private noteUnavailable(exception: unknown): void {
    this.outages.down('database', failureReason(exception), 'a request');
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const { status, body, retryAfter } = this.describe(exception, request);
    if (retryAfter) void reply.header('retry-after', String(retryAfter));
    // Every error is JSON, whatever the route would have answered (a CSV route has set text/csv before its
    // query was validated): without this, Fastify cannot send the object and the error became a 500.
    void reply.removeHeader('content-disposition');
    void reply.type('application/json; charset=utf-8');
    // A body over the limit is answered before it has arrived; the connection lingers so the client reads this.
    if (status === 413) lingerAfterAnswer(request.raw);
    void reply.status(status).send(body);
  }

  describe(
    exception: unknown,
    request?: FastifyRequest,
  ): { status: number; body: ErrorBody; retryAfter?: number } {
    if (exception instanceof RawBodyError) {
      const body = exception.getResponse() as ErrorBody;
      return { status: exception.getStatus(), body, retryAfter: exception.retryAfter };
    }
    if (exception instanceof GuardError) {
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
      const retryAfter = (exception as { retryAfter?: number }).retryAfter;
      if (typeof response === 'object' && response && 'success' in response) {
        const {
          success: _success,
          retryAfter: _retry,
          ...rest
        } = response as ErrorBody & { retryAfter?: number };
        return { status, body: { success: false, ...rest }, retryAfter };
      }
      return {
        status,
        body: { success: false, error: describeHttpResponse(response, exception.message) },
        retryAfter,
      };
    }
    const translated = translateDatabaseError(exception);
    if (translated) {
      if (translated instanceof DatabaseUnavailableError) this.noteUnavailable(exception);
      return this.describe(translated, request);
    }

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
