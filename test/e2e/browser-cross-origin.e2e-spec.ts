import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { TestApp } from '../support/app';
import { messSetup } from '../support/mess-setup';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) {
  console.warn(`browser test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);
}

/** The frontend's page: served from its own origin, it calls the API on another with fetch, as a browser app does. */
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Mess frontend</title></head>
<body><a id="save" href="#">save</a><script>
window.api = async (base, token, method, path, { body, headers = {}, as = 'json' } = {}) => {
  const res = await fetch(base + path, {
    method,
    headers: { Authorization: 'Bearer ' + token, ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const disposition = res.headers.get('content-disposition');
  const requestId = res.headers.get('x-request-id');
  if (as === 'download') {
    // What a frontend does with a file answer: a blob URL, saved under the name the server gave.
    const blob = await res.blob();
    const name = /filename="([^"]+)"/.exec(disposition || '')?.[1] ?? 'download';
    const link = document.getElementById('save');
    link.href = URL.createObjectURL(blob);
    link.download = name;
    link.click();
    return { status: res.status, disposition, requestId, size: blob.size, type: blob.type };
  }
  return { status: res.status, disposition, requestId, body: await res.json() };
};
</script></body></html>`;

(haveChromium ? describe : describe.skip)(
  'A frontend on another origin, in a real browser (Chromium)',
  () => {
    let t: TestApp;
    let page: Server;
    let browser: Browser;
    let apiBase: string;
    let pageOrigin: string;

    beforeAll(async () => {
      page = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
      });
      await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
      // localhost vs 127.0.0.1: another origin (host and port differ), as a dev server at localhost:5173 is.
      pageOrigin = `http://localhost:${(page.address() as AddressInfo).port}`;
      t = await TestApp.start({ CORS_ORIGINS: pageOrigin });
      await t.app.listen(0, '127.0.0.1');
      apiBase = `http://127.0.0.1:${new URL(await t.app.getUrl()).port}/api`;
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
      });
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await t?.close();
      await new Promise((resolve) => page?.close(resolve));
    });

    it('records a payment with an Idempotency-Key (twice: one entry) and downloads the statement PDF by its name', async () => {
      const admin = await t.adminToken();
      expect((await t.post('/auth/admin/setup', messSetup(), { token: admin })).status).toBe(200);
      const treasurer = await t.member('treasurer', { fullName: 'Ravi Kumar' });
      const student = await t.member('student', { fullName: 'Asha Verma' });

      const context = await browser.newContext({ acceptDownloads: true });
      const tab = await context.newPage();
      await tab.goto(`${pageOrigin}/`);
      const call = (method: string, path: string, options: Record<string, unknown> = {}) =>
        tab.evaluate(
          ([base, token, m, p, o]) =>
            (
              globalThis as unknown as {
                api: (
                  b: string,
                  t: string,
                  m: string,
                  p: string,
                  o: unknown,
                ) => Promise<Record<string, unknown>>;
              }
            ).api(base, token, m, p, o),
          [apiBase, treasurer.token, method, path, options] as const,
        );

      const today = new Date().toISOString().slice(0, 10);
      const payment = {
        body: { amount: 1250.5, date: today, method: 'upi', reference: 'UPI-BROWSER-1' },
        headers: { 'Idempotency-Key': 'browser-payment-0001', 'X-Request-Id': 'browser-req-1' },
      };
      const first = await call('POST', `/accounts/${student.id}/payments`, payment);
      const again = await call('POST', `/accounts/${student.id}/payments`, payment);
      expect(first.status).toBe(201);
      expect(first.requestId).toBe('browser-req-1'); // an exposed header, readable by the page
      expect(again.status).toBe(201);
      const entry = (first.body as { entry: { _id: string; amount: number } }).entry;
      expect((again.body as { entry: { _id: string } }).entry._id).toBe(entry._id);
      expect(entry.amount).toBe(1250.5);
      const account = await t.get(`/accounts/${student.id}`, { token: treasurer.token });
      expect(account.body.entries.filter((e: { kind: string }) => e.kind === 'payment')).toHaveLength(1);

      const [download, answer] = await Promise.all([
        tab.waitForEvent('download'),
        call('GET', `/accounts/${student.id}/statement`, {
          headers: { Accept: 'application/pdf' },
          as: 'download',
        }),
      ]);
      expect(answer.status).toBe(200);
      expect(answer.type).toBe('application/pdf');
      const month = today.slice(0, 7);
      const name = `statement-${student.id}-${month}-${month}.pdf`;
      expect(answer.disposition).toContain(`filename="${name}"`); // exposed: without it the page reads null
      expect(download.suggestedFilename()).toBe(name);
      const saved = await download.createReadStream();
      const chunks: Buffer[] = [];
      for await (const chunk of saved) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).subarray(0, 5).toString()).toBe('%PDF-');
      await context.close();
    }, 120_000);
  },
);
