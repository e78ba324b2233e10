import { PGLITE_TEMPLATE_ENV, pgliteTemplate } from '../support/templates';

/**
 * Jest global setup of the medium project: the migrated PGlite template every medium database is loaded from
 * (test/support/templates.ts; the e2e project's setup makes the same file, and whichever runs second finds it).
 * Always the embedded engine, also when the e2e files run against a PostgreSQL server. A failure only costs speed:
 * each database then migrates itself.
 */
export default async function globalSetup(): Promise<void> {
  try {
    process.env[PGLITE_TEMPLATE_ENV] = await pgliteTemplate();
  } catch (error) {
    process.stderr.write(
      `medium global setup: no template database (${error instanceof Error ? error.message : String(error)}); ` +
        'each spec migrates its own\n',
    );
  }
}
