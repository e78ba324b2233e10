import { createHash } from 'node:crypto';
import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The running service's control socket: a Unix socket beside the embedded data directory, `<DATA_DIR>/control.sock`
 * (mode 0600), through which `npm run backup` asks the process that holds the database for a backup. Not an HTTP
 * route: nothing on the network reaches it, and whoever may connect (the data directory's owner) could read
 * `pgdata/` anyway. One request per connection: a JSON line `{"command": "backup"}`, answered by one JSON line.
 */
export function controlSocketPath(dataDir: string): string {
  const path = resolve(dataDir, 'control.sock');
  // A socket's path must fit in 108 bytes (sun_path); a deep DATA_DIR gets one in the temporary folder instead.
  if (Buffer.byteLength(path) <= 100) return path;
  const key = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16);
  return join(tmpdir(), `mess-${key}.sock`);
}

export type ControlCommands = Record<string, () => Promise<unknown>>;

interface Answer {
  ok: boolean;
  result?: unknown;
  error?: string;
}

/** Another live process answers on this data directory's socket: it holds the database. */
export class DataDirectoryHeldError extends Error {
  constructor(path: string) {
    super(`another process serves the embedded database here (it answers on ${path}); stop it first`);
    this.name = 'DataDirectoryHeldError';
  }
}

/** Listens on the data directory's socket; a stale socket (its process gone) is replaced, a live one refused. */
export async function serveControlSocket(dataDir: string, commands: ControlCommands): Promise<Server> {
  const path = controlSocketPath(dataDir);
  if (existsSync(path)) {
    if (await answers(path)) throw new DataDirectoryHeldError(path);
    unlinkSync(path);
  }
  const server = createServer((socket) => {
    let request = '';
    socket.setEncoding('utf8');
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      request += chunk;
      const end = request.indexOf('\n');
      if (end < 0) {
        if (request.length > 4096) socket.destroy();
        return;
      }
      socket.pause();
      void answer(request.slice(0, end), commands).then((reply) => socket.end(`${JSON.stringify(reply)}\n`));
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(path, () => {
      server.off('error', fail);
      ok();
    });
  });
  chmodSync(path, 0o600);
  return server;
}

async function answer(line: string, commands: ControlCommands): Promise<Answer> {
  let command: unknown;
  try {
    command = (JSON.parse(line) as { command?: unknown }).command;
  } catch {
    return { ok: false, error: 'not a JSON line' };
  }
  const run = typeof command === 'string' && Object.hasOwn(commands, command) ? commands[command] : undefined;
  if (!run) return { ok: false, error: `unknown command ${JSON.stringify(command)}` };
  try {
    return { ok: true, result: await run() };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** Whether a live process answers on `path` (a socket left by a killed process refuses the connection). */
function answers(path: string): Promise<boolean> {
  return new Promise((ok) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      ok(true);
    });
    socket.once('error', () => ok(false));
  });
}

/** Whether a service runs on `dataDir` (it answers on the data directory's socket). */
export const serviceRunsOn = (dataDir: string): Promise<boolean> => answers(controlSocketPath(dataDir));

/**
 * Sends `command` to the service running on `dataDir` and returns its result; `undefined` when no service runs
 * there (no socket, or a stale one). Throws the service's error when it answered with one.
 */
export function askService(dataDir: string, command: string): Promise<{ result: unknown } | undefined> {
  const path = controlSocketPath(dataDir);
  return new Promise((ok, fail) => {
    let reply = '';
    let connected = false;
    const socket = connect(path);
    socket.setEncoding('utf8');
    socket.once('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify({ command })}\n`);
    });
    socket.on('data', (chunk: string) => (reply += chunk));
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (!connected && (error.code === 'ENOENT' || error.code === 'ECONNREFUSED')) ok(undefined);
      else fail(error);
    });
    socket.once('end', () => {
      try {
        const parsed = JSON.parse(reply) as Answer;
        if (parsed.ok) ok({ result: parsed.result });
        else fail(new Error(parsed.error ?? 'the service answered with an error'));
      } catch {
        fail(new Error(`the service's answer was not JSON: ${reply.slice(0, 200)}`));
      }
    });
  });
}
