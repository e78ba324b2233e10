import { PGLITE_TEMPLATE_ENV, pgliteTemplate, SERVER_TEMPLATE_ENV, serverTemplate } from './templates';

/**
 * Jest global setup of the e2e project: the migrated templates every file starts from (see templates.ts). Workers
 * are started after this and inherit the environment set here. A failure here only costs speed: files then make
 * and migrate their own database as before.
 */
export default async function globalSetup(): Promise<void> {
  try {
    const base = process.env.TEST_DATABASE_URL;
    if (base) process.env[SERVER_TEMPLATE_ENV] = await serverTemplate(base);
    else process.env[PGLITE_TEMPLATE_ENV] = await pgliteTemplate();
  } catch (error) {
    process.stderr.write(
      `e2e global setup: no template database (${error instanceof Error ? error.message : String(error)}); ` +
        'each file migrates its own\n',
    );
  }
}
