// `npm run client:pack-check` (CI): the typed client installs on its own and works from plain Node. Packs
// clients/typescript with `npm pack`, installs the tarball into an empty folder (npm fetches openapi-fetch, nothing
// else; no compiler, no checkout), starts the built service (dist/, in memory) and runs two scripts there, one
// `import` (ESM) and one `require` (CommonJS): a refused login read as a typed error, a login, a call, and a CSV
// download read as text. Exits non-zero with what went wrong.
const { execFileSync } = require('node:child_process');
const { mkdtempSync, rmSync, writeFileSync, readdirSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');
const { createApp } = require('../dist/app');
const { loadConfig } = require('../dist/config/app-config');

const ADMIN = { email: 'client@check.local', password: 'client-check-only' };

const consumerScript = (style) => `${
  style === 'esm'
    ? "import { createMessClient, unwrap, MessApiError } from '@mess/api-client';"
    : "const { createMessClient, unwrap, MessApiError } = require('@mess/api-client');"
}
async function main() {
  const [baseUrl, email, password] = process.argv.slice(2);
  const api = createMessClient({ baseUrl });
  let refused;
  try {
    await unwrap(api.POST('/api/auth/login', { body: { email, password: 'not-the-password' } }));
  } catch (error) {
    refused = error;
  }
  if (!(refused instanceof MessApiError) || refused.status !== 401 || refused.message !== 'Invalid email or password') {
    throw new Error('a wrong password was not a typed 401: ' + String(refused));
  }
  const { token, user } = await unwrap(api.POST('/api/auth/login', { body: { email, password } }));
  api.setToken(token);
  const { config } = await unwrap(api.GET('/api/auth/admin/config'));
  const csv = await unwrap(
    api.GET('/api/accounts/{userId}/statement', {
      params: { path: { userId: user._id } },
      headers: { accept: 'text/csv' },
      parseAs: 'text',
    }),
  );
  if (typeof csv !== 'string' || !csv.includes('balance_inr')) throw new Error('the CSV statement was not read as text');
  console.log('${style}: typed 401, logged in as ' + user.email + ', mess ' + config.messName + ', CSV ' + csv.length + ' characters');
}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
`;

async function main() {
  const root = resolve(__dirname, '..');
  const work = mkdtempSync(join(tmpdir(), 'mess-client-'));
  let app;
  try {
    execFileSync('npm', ['pack', '--silent', '--pack-destination', work], {
      cwd: join(root, 'clients/typescript'),
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error('npm pack made no tarball');
    const consumer = join(work, 'consumer');
    execFileSync('mkdir', [consumer]);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent', join(work, tarball)], {
      cwd: consumer,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    writeFileSync(join(consumer, 'check.mjs'), consumerScript('esm'));
    writeFileSync(join(consumer, 'check.cjs'), consumerScript('cjs'));

    app = await createApp(
      loadConfig({
        NODE_ENV: 'test',
        DATA_DIR: 'memory://',
        LOG_LEVEL: 'silent',
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
      }),
    );
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address();
    for (const script of ['check.mjs', 'check.cjs']) {
      // The service answers from this process, so the scripts run as children (asynchronously: not blocking it).
      await new Promise((done, fail) => {
        const child = require('node:child_process').spawn(
          process.execPath,
          [script, `http://127.0.0.1:${port}`, ADMIN.email, ADMIN.password],
          { cwd: consumer, stdio: 'inherit' },
        );
        child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`${script} exited with ${code}`))));
      });
    }
    console.log(`client ${tarball} installed alone and used from Node (ESM and CommonJS)`);
  } finally {
    await app?.close();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
