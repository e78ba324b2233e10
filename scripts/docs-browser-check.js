// Opens /api/docs of the built service in headless Chromium and checks that Swagger UI renders every operation.
// `npm run docs:browser` (needs Debian's chromium at /usr/bin/chromium, or CHROMIUM_PATH). Writes a screenshot to
// bench/out/docs.png. Exits non-zero when the page does not render.
const { existsSync, mkdirSync } = require('node:fs');
const { chromium } = require('playwright-core');
const { createApp } = require('../dist/app');
const { loadConfig } = require('../dist/config/app-config');

async function main() {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    console.log(`docs browser check skipped: no Chromium at ${executablePath} (apt-get install chromium)`);
    return;
  }
  const app = await createApp(
    loadConfig({ NODE_ENV: 'test', DATA_DIR: 'memory://', LOG_LEVEL: 'silent', ADMIN_EMAIL: 'docs@check.local', ADMIN_PASSWORD: 'docs-check-only' }),
  );
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address();
  const browser = await chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`http://127.0.0.1:${port}/api/docs`, { waitUntil: 'networkidle' });
    await page.waitForSelector('.opblock', { timeout: 15000 });
    const operations = await page.locator('.opblock').count();
    const title = await page.locator('.info .title').first().innerText();
    const documented = await (await fetch(`http://127.0.0.1:${port}/api/docs.json`)).json();
    const expected = Object.values(documented.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    mkdirSync('bench/out', { recursive: true });
    await page.screenshot({ path: 'bench/out/docs.png', fullPage: false });
    console.log(`docs page: "${title.split('\n')[0]}", ${operations} operations rendered of ${expected} documented`);
    if (operations !== expected || errors.length) {
      throw new Error(`docs page incomplete: ${operations}/${expected} operations; page errors: ${errors.join('; ')}`);
    }
  } finally {
    await browser.close();
    await app.close();
  }
}

main().catch((error) => {
  console.error(error.message ?? error);
  process.exit(1);
});
