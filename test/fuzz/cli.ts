/**
 * `npm run fuzz -- [--requests 100000] [--seed N] [--url http://host:port] [--concurrency 4] [--minutes M]
 *                  [--cross-requests 2000]`
 *
 * First the cross-mess identity (cross-mess.ts): a second mess (slug `fuzz-b`) whose student, manager and treasurer
 * send every operation with the ids of the first mess's records, then --cross-requests random ones carrying them;
 * then --requests hostile requests as every role of the first mess.
 *
 * Long fuzz runs for bug hunting. Without --url it starts the service itself, in this process, on a random local
 * port: the embedded engine in memory, or the PostgreSQL server of DATABASE_URL (use an empty database). With --url
 * it drives a running service; give the bootstrap admin with FUZZ_ADMIN_EMAIL / FUZZ_ADMIN_PASSWORD (and
 * FUZZ_JWT_SECRET to also check that the secret never leaks); its rate limits will answer some requests 429.
 * Prints the status × operation table and every finding with its request; exits 1 when there is a finding.
 */
import { randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config/app-config';
import {
  formatFinding,
  formatReport,
  Fuzzer,
  type FuzzRequest,
  type FuzzResponse,
  type Transport,
} from './fuzzer';
import { crossMessPhase } from './cross-mess';
import { hostileTokens, SECOND_MESS, Sessions } from './setup';

interface Args {
  requests: number;
  minutes?: number;
  seed: number;
  url?: string;
  concurrency: number;
  show: number;
  crossRequests: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    requests: 10_000,
    seed: randomBytes(4).readUInt32BE(0),
    concurrency: 4,
    show: 50,
    crossRequests: 2_000,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const [name, value] = [argv[i], argv[i + 1]];
    const int = () => {
      if (!/^\d+$/.test(value ?? '')) throw new Error(`${name} needs a whole number`);
      i += 1;
      return Number(value);
    };
    if (name === '--requests') args.requests = int();
    else if (name === '--seed') args.seed = int();
    else if (name === '--concurrency') args.concurrency = Math.max(1, int());
    else if (name === '--show') args.show = int();
    else if (name === '--minutes') args.minutes = int();
    else if (name === '--cross-requests') args.crossRequests = int();
    else if (name === '--url') {
      args.url = value?.replace(/\/+$/, '');
      i += 1;
    } else throw new Error(`unknown option ${name}; see the comment at the top of test/fuzz/cli.ts`);
  }
  return args;
}

function httpTransport(base: string): Transport {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const target = new URL(base);
  return (req: FuzzRequest) =>
    new Promise<FuzzResponse>((resolve, reject) => {
      const outgoing = httpRequest(
        {
          agent,
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, ...(req.body ? { 'content-length': String(req.body.length) } : {}) },
          timeout: 30_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: Buffer.concat(chunks).toString('utf8'),
              headers: res.headers,
            }),
          );
          res.on('error', reject);
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(new Error('no answer within 30 s')));
      outgoing.on('error', reject);
      outgoing.end(req.body);
    });
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  let app: NestFastifyApplication | undefined;
  let base = args.url;
  let admin = { email: process.env.FUZZ_ADMIN_EMAIL ?? '', password: process.env.FUZZ_ADMIN_PASSWORD ?? '' };
  let jwtSecret = process.env.FUZZ_JWT_SECRET;
  if (!base) {
    admin = { email: 'fuzz-admin@test.local', password: `fuzz-${randomBytes(9).toString('base64url')}` };
    jwtSecret = randomBytes(48).toString('base64url');
    const config = loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      DATA_DIR: 'memory://',
      JWT_SECRET: jwtSecret,
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      RATE_LIMIT_PER_MINUTE: '1000000',
      LOGIN_RATE_LIMIT_PER_MINUTE: '100000',
      LOGIN_RATE_LIMIT_PER_EMAIL: '100000',
      // The server (and, behind a pooler, its direct URL and the pool mode), as the service reads them.
      ...Object.fromEntries(
        ['DATABASE_URL', 'DATABASE_DIRECT_URL', 'DATABASE_POOL_MODE']
          .filter((name) => process.env[name])
          .map((name) => [name, process.env[name]!]),
      ),
    });
    app = await createApp(config);
    await app.listen(0, '127.0.0.1');
    base = await app.getUrl();
    base = base.replace('[::1]', '127.0.0.1');
  }
  if (!admin.email || !admin.password)
    throw new Error('with --url, set FUZZ_ADMIN_EMAIL and FUZZ_ADMIN_PASSWORD');
  const transport = httpTransport(base);
  const docRes = await transport({
    index: -1,
    operation: 'docs',
    role: 'none',
    method: 'GET',
    url: '/api/docs.json',
    headers: {},
    mutations: [],
    invalid: false,
  });
  if (docRes.status !== 200) throw new Error(`GET /api/docs.json answered ${docRes.status}`);
  const sessions = await new Sessions(transport, admin).prepare();
  const engine = app ? (process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded engine') : base;
  const doc = JSON.parse(docRes.body) as unknown;

  const second = await new Sessions(transport, admin, SECOND_MESS).prepare();
  console.log(
    `Cross-mess on ${engine} with seed ${args.seed}: members of ${SECOND_MESS.slug} with the ids of the first mess, ` +
      `the sweep and ${args.crossRequests} random requests, concurrency ${args.concurrency}`,
  );
  const cross = await crossMessPhase(doc, transport, sessions, second, {
    seed: args.seed,
    requests: args.crossRequests,
    concurrency: args.concurrency,
    secrets: [admin.password, ...(jwtSecret ? [jwtSecret] : [])],
    jwtSecret,
  });
  console.log(formatReport(cross.report, args.show));
  console.log(
    `The first mess afterwards: ${cross.changed.length ? `${cross.changed.length} answers changed` : 'unchanged'} ` +
      `(${cross.foreign.forbidden.length} ids of it watched; sweep ${cross.fuzzer.sweepLength} requests)`,
  );
  for (const line of [...cross.unreadable.map((u) => `unreadable: ${u}`), ...cross.changed])
    console.log(line);
  const crossFailed = Boolean(
    cross.report.findings.length || cross.changed.length || cross.unreadable.length,
  );
  console.log(
    `Fuzzing ${engine} with seed ${args.seed}: ${args.requests} requests, concurrency ${args.concurrency}`,
  );
  const fuzzer = new Fuzzer(doc, transport, {
    seed: args.seed,
    requests: args.requests,
    concurrency: args.concurrency,
    secrets: [admin.password, ...(jwtSecret ? [jwtSecret] : [])],
    refreshToken: (role) => sessions.refresh(role),
    ...(args.minutes ? { timeBudgetMs: args.minutes * 60_000 } : {}),
    onFinding: (finding) => {
      printed += 1;
      if (printed <= args.show) console.log(formatFinding(finding).join('\n'));
    },
    progress: (sent, report) => {
      if (sent % 5_000 === 0)
        console.log(
          `  ${sent} sent, ${report.findings.length} findings, ${((Date.now() - started) / 1000).toFixed(0)} s`,
        );
    },
  });
  // Ctrl-C (or SIGTERM) ends the run early with its report.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => fuzzer.stop());
  const started = Date.now();
  let printed = 0;
  fuzzer.setTokens({ ...sessions.tokens }, hostileTokens(sessions.tokens.student, jwtSecret));
  const report = await fuzzer.run();
  const live = await transport({
    index: -1,
    operation: 'live',
    role: 'none',
    method: 'GET',
    url: '/api/live',
    headers: {},
    mutations: [],
    invalid: false,
  });
  console.log(formatReport(report, args.show));
  console.log(`GET /api/live afterwards: ${live.status}`);
  await app?.close();
  process.exit(report.findings.length || crossFailed || live.status !== 200 ? 1 : 0);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(2);
});
