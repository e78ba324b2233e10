import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Debian's pgbouncer in transaction mode in front of a PostgreSQL server, started by a test (the same settings as
 * scripts/pgbouncer.sh, which CI uses for the whole e2e suite), with a pool as small as the test wants. Root starts
 * it as the `postgres` user (pgbouncer refuses to run as root).
 */
export const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((path) => existsSync(path));

export interface Pgbouncer {
  port: number;
  /** `url` with the pooler's host and port. */
  via(url: string): string;
  stop(): Promise<void>;
}

export async function startPgbouncer(server: string, options: { poolSize: number }): Promise<Pgbouncer> {
  if (!PGBOUNCER) throw new Error('no pgbouncer on this machine (apt-get install pgbouncer)');
  const target = new URL(server);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'mess-pgbouncer-'));
  const user = decodeURIComponent(target.username || 'postgres');
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${dir}`,
      'auth_type = trust',
      `admin_users = ${user}`,
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize}`,
      'reserve_pool_size = 0',
      'max_client_conn = 500',
      'ignore_startup_parameters = extra_float_digits,statement_timeout,options',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(spawnSync('id', ['-u', 'postgres']).stdout.toString().trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres']).stdout.toString().trim());
    for (const file of ['', 'userlist.txt', 'pgbouncer.ini']) chownSync(join(dir, file), uid, gid);
  }
  const child: ChildProcess = spawn(
    PGBOUNCER,
    [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')],
    { stdio: 'ignore' },
  );
  await waitForPort(port, 10_000);
  return {
    port,
    via(url: string) {
      const pooled = new URL(url);
      pooled.hostname = '127.0.0.1';
      pooled.port = String(port);
      return pooled.toString();
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGINT');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`pgbouncer did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
