// First, so that every module loaded after it is compiled from (or into) Node's on-disk cache.
import './compile-cache';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ConfigError, loadConfig } from './config/app-config';
import { createApp } from './app';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const app = await createApp(config);
  await app.listen(config.port, config.host);
  const logger = new Logger('Main');
  logger.log(`Mess API listening on http://${config.host}:${config.port}/api (docs at /api/docs)`);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void shutdown(app, logger, signal, config.shutdownTimeoutMs));
  }
}

/**
 * HTTP first, then the rest. Nest's close runs every onModuleDestroy (the delivery worker, the
 * SMTP pool, the rate-limit storage) before it closes the HTTP server, so a request still in flight could meet a
 * stopped service (the database itself closes last either way). Here the server stops accepting (new requests on
 * open connections get 503), every request in flight is answered, and only then do the services and the database
 * stop. Exit 0: the pod ended as asked. Whatever is still running `timeoutMs` after the signal (a client that never
 * sends the rest of its body, a stuck statement) is abandoned: the log says which step it was in, and the process
 * exits 1 within the documented bound instead of waiting for Kubernetes's SIGKILL.
 */
async function shutdown(
  app: NestFastifyApplication,
  logger: Logger,
  signal: NodeJS.Signals,
  timeoutMs: number,
): Promise<void> {
  logger.log(`${signal}: no new requests; finishing those in flight`);
  let step = 'finishing the requests in flight';
  setTimeout(() => {
    process.stderr.write(`Shutdown did not finish within ${timeoutMs} ms (still ${step}); exiting\n`);
    process.exit(1);
  }, timeoutMs).unref();
  try {
    await app.getHttpAdapter().close();
    step = 'stopping the services and the database';
    await app.close();
    logger.log('Stopped cleanly');
    process.exit(0);
  } catch (error) {
    process.stderr.write(
      `Shutdown failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `Start-up failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
