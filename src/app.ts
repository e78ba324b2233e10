import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Logger, PinoLogger } from 'nestjs-pino';
import { AppConfig } from './config/app-config';
import { AppModule } from './app.module';
import { finishDocument } from './common/http/document-finish';
import { operationId } from './common/http/operation-id';
import { addSharedErrorResponses } from './common/http/shared-error-responses';
import { corsOptions, refuseForeignPreflight } from './common/http/cors';
import { registerAdmission } from './common/http/admission';
import { registerRequestContext } from './common/context/request-context.hook';
import { registerRequestLog } from './common/logging/request-log';
import { registerSecurityHeaders } from './common/http/security-headers';
import { WorkLimiter } from './common/concurrency/work-limiter';
import { Database } from './database/database';
import { PrometheusMetrics } from './common/stats/prometheus';
import { registerRequestMetrics } from './common/stats/request-hooks';
import {
  assertUtf8Charset,
  parseFormBody,
  parseJsonBody,
  parseTextBody,
  CSV_BODY_LIMIT_BYTES,
  XLSX_BODY_LIMIT_BYTES,
  parseQueryString,
} from './common/http/request-parsing';
import { RequestMetrics } from './common/stats/request-metrics';
import { XLSX_CONTENT_TYPE } from './modules/accounts/statement-xlsx';
import { answerClientError } from './common/http/client-errors';

export const API_PREFIX = 'api';

export function fastifyAdapter(config: AppConfig): FastifyAdapter {
  return new FastifyAdapter({
    bodyLimit: config.bodyLimitBytes,
    trustProxy: trustProxyOption(config.trustProxy),
    // No forceCloseConnections: Nest's adapter reads any truthy value (even 'idle') as "destroy every open socket
    // on close", which cut requests in flight. Without it Node's server.close() drops only idle keep-alive
    // connections and waits for the rest; a request arriving on one meanwhile is answered 503.
    return503OnClosing: true,
    // What the HTTP parser refuses (431, 400, 408) answered in our format, with Connection: close.
    clientErrorHandler: answerClientError,
    // One strict parser for every query string (see request-parsing.ts): repeated keys become arrays for the
    // validation pipe to refuse, malformed encoding and ill-formed Unicode are recorded and answered with 400.
    routerOptions: { querystringParser: parseQueryString },
    // Our own request ids: a well-formed X-Request-Id from the caller (a proxy, another service) or a new UUID.
    requestIdHeader: false,
    genReqId: (req: IncomingMessage) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && /^[\w.-]{1,100}$/.test(incoming) ? incoming : randomUUID();
    },
  });
}

/**
 * Fastify's `trustProxy` for TRUST_PROXY: never `true` (every hop believed, so the left-most, client-written
 * X-Forwarded-For entry would be the IP). A number trusts that many hops nearest the socket — Fastify itself treats a
 * bare number as "trust nothing" — and the address list trusts only those proxies.
 */
export function trustProxyOption(trust: AppConfig['trustProxy']) {
  if (typeof trust === 'number') {
    const hops = trust;
    return hops > 0 ? (_address: string, hop: number) => hop < hops : false;
  }
  return trust;
}

/** Builds the whole service; used by main.ts and by the end-to-end tests alike. */
export async function createApp(config: AppConfig): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.register(config),
    fastifyAdapter(config),
    {
      bufferLogs: true,
      // Nest's default answers a failure while building the module graph with process.exit(1): that took a whole
      // Jest run down with it (a slow start that outlived its test file). A rejected promise instead: main.ts
      // prints it and exits 1 itself, a test file fails alone.
      abortOnError: false,
    },
  );
  await configureApp(app, config);
  return app;
}

export async function configureApp(app: NestFastifyApplication, config: AppConfig): Promise<void> {
  app.useLogger(app.get(Logger));
  app.setGlobalPrefix(API_PREFIX);
  app.enableCors(corsOptions(config.corsOrigins));

  const fastify = app.getHttpAdapter().getInstance();
  // The root logger exists once the app is initialised (nestjs-pino sets it up then); requests come after.
  registerRequestLog(fastify, () => PinoLogger.root);
  registerRequestContext(fastify);
  registerSecurityHeaders(fastify);
  // The id (also in the request's log lines, see request-log.ts) in the response, and the request counted; before the
  // admission below, so that a request it sheds (503) has its id and is counted in and out like any other.
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  registerRequestMetrics(fastify, app.get(RequestMetrics), app.get(PrometheusMetrics));
  if (app.get(Database).kind === 'embedded') {
    const { embeddedConcurrency, embeddedQueueTimeoutMs, embeddedMaxQueue } = config.db;
    registerAdmission(
      fastify,
      new WorkLimiter(embeddedConcurrency, embeddedQueueTimeoutMs, embeddedMaxQueue),
    );
  }
  // The API speaks JSON only: without this, a text/plain body reaches validation as a string and answers a
  // confusing 400 about every field; now it is 415 like any other content type.
  fastify.removeContentTypeParser('text/plain');
  fastify.addHook('onRequest', refuseForeignPreflight(config.corsOrigins));
  // Our own JSON and form parsers (registered before Nest's defaults, which then stand aside): the nesting depth and
  // the Unicode are checked while the body is parsed, before any validator walks it. See request-parsing.ts.
  // (A throw inside reaches the error handler, and so the exception filter, like any other error.)
  app.useBodyParser('application/json', { bodyLimit: config.bodyLimitBytes }, (request, body, done) => {
    assertUtf8Charset(request.headers['content-type']);
    // The bytes as received, for a signed webhook (its HMAC is over the raw body, not a re-serialisation).
    (request as { rawBody?: Buffer }).rawBody = body;
    done(null, parseJsonBody(body));
  });
  // A bank statement (POST /accounts/bank-statement) is a CSV file: kept as its UTF-8 text (the route parses it).
  app.useBodyParser(
    'text/csv',
    { bodyLimit: Math.max(config.bodyLimitBytes, CSV_BODY_LIMIT_BYTES) },
    (request, body, done) => {
      assertUtf8Charset(request.headers['content-type']);
      done(null, parseTextBody(body));
    },
  );
  // …or the same statement as an Excel workbook: its bytes as received (the route reads the first sheet).
  app.useBodyParser(
    XLSX_CONTENT_TYPE,
    { bodyLimit: Math.max(config.bodyLimitBytes, XLSX_BODY_LIMIT_BYTES) },
    (_request, body, done) => done(null, body),
  );
  app.useBodyParser(
    'application/x-www-form-urlencoded',
    { bodyLimit: config.bodyLimitBytes },
    (request, body, done) => {
      assertUtf8Charset(request.headers['content-type']);
      done(null, parseFormBody(body));
    },
  );
  // Built on the first request for the docs, not at start: the document walks every route's metadata (~0.4 s of
  // CPU), which a replica's start-up and its startup probe need not wait for.
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    useGlobalPrefix: true,
    jsonDocumentUrl: 'docs.json',
    yamlDocumentUrl: 'docs.yaml',
    customSiteTitle: 'Mess API',
  });
}

export function buildOpenApiDocument(app: INestApplication) {
  const description = [
    'Hostel mess management: members and approval, mess configuration, menu, expenses, attendance, feedback,',
    'analytics, notifications and the audit trail.',
    '',
    'Authenticate with `Authorization: Bearer <token>` from `POST /auth/login` or `POST /auth/idp` (valid 7 days).',
    'Guard failures answer exactly `{"error":"No token"}` or `{"error":"Invalid token"}` (401) and',
    '`{"error":"Forbidden"}` (403). Every other error is `{"success":false,"error":"…","details":[{field,message}]}`.',
    'Every route may answer 429 (rate limit, with Retry-After); every route that takes a body may answer 413.',
    'Admin passes every role check.',
  ].join('\n');
  const options = new DocumentBuilder()
    .setTitle('Mess API')
    .setDescription(description)
    .setVersion('2.0')
    .setLicense('MIT', 'https://opensource.org/licenses/MIT')
    .addServer('/')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
    .build();
  return finishDocument(
    addSharedErrorResponses(SwaggerModule.createDocument(app, options, { operationIdFactory: operationId })),
  );
}
