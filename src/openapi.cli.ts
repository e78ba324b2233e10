// `npm run openapi`: writes the OpenAPI document the service serves at /api/docs.json to openapi/openapi.json
// (or to the path given), keys sorted so that a diff of the file shows an interface change and nothing else.
// The document depends on the code alone: the application is built in Nest's preview mode (no provider runs, no
// database opens) from a fixed configuration, never from the caller's environment or the stored mess settings.
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { API_PREFIX, buildOpenApiDocument, fastifyAdapter } from './app';
import { AppModule } from './app.module';
import { sortedKeys } from './common/http/document-finish';
import { loadConfig } from './config/app-config';

/** The only configuration the document is built from. */
const FIXED_ENV = {
  NODE_ENV: 'test',
  DATA_DIR: 'memory://',
  JWT_SECRET: 'openapi-document-only-never-signs-anything',
  LOG_LEVEL: 'silent',
};

/** The document as the committed file holds it: sorted keys, two-space indent, a final newline. */
export async function openApiFileText(): Promise<string> {
  const config = loadConfig(FIXED_ENV);
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.register(config),
    fastifyAdapter(config),
    {
      preview: true,
      logger: false,
    },
  );
  try {
    app.setGlobalPrefix(API_PREFIX);
    return `${JSON.stringify(sortedKeys(buildOpenApiDocument(app)), null, 2)}\n`;
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
  const out = resolve(process.argv[2] ?? 'openapi/openapi.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, await openApiFileText());
  console.log(`OpenAPI document written to ${out}`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  });
}
