import { createServer, Server, Socket, connect } from 'node:net';
import { AddressInfo } from 'node:net';
import { TestApp } from './app';
import { freshDatabase } from './database';

type Mode = 'forward' | 'hang' | 'pause';

interface Pair {
  client: Socket;
  upstream: Socket;
  /** Bytes held back while paused, per direction, delivered in order on resume. */
  toUpstream: Buffer[];
  toClient: Buffer[];
}

/**
 * A TCP proxy in front of the PostgreSQL server, so a test can take "the database" away from the service and give
 * it back without touching the real server: `refuse` closes every connection and refuses new ones, `hang` drops
 * open connections and accepts new ones that never answer, `pause` is a network partition (every connection, open
 * or new, stays open and nothing is delivered either way until `resume`, which delivers what was held back), and
 * `forward` restores service from any of them.
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private readonly pairs = new Set<Pair>();
  private mode: Mode = 'forward';
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(port = 0): Promise<this> {
    this.server = createServer((client) => {
      this.track(client);
      if (this.mode === 'hang') return;
      const upstream = connect(this.targetPort, this.targetHost);
      this.track(upstream);
      const pair: Pair = { client, upstream, toUpstream: [], toClient: [] };
      this.pairs.add(pair);
      client.on('data', (chunk: Buffer) => this.deliver(pair, 'toUpstream', chunk));
      upstream.on('data', (chunk: Buffer) => this.deliver(pair, 'toClient', chunk));
      const end = () => {
        this.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** The database is gone: open connections drop and new ones are refused. */
  async refuse(): Promise<void> {
    await this.close();
  }

  /** Connections are accepted and never answered. */
  async hang(): Promise<void> {
    this.mode = 'hang';
    this.dropAll();
    if (!this.server) await this.start(this.port);
  }

  /** A network partition: every connection stays open, nothing gets through in either direction. */
  async pause(): Promise<void> {
    this.mode = 'pause';
    if (!this.server) await this.start(this.port);
  }

  /** The partition heals: held-back bytes are delivered and forwarding goes on, on the same connections. */
  resume(): void {
    this.mode = 'forward';
    for (const pair of this.pairs) {
      for (const chunk of pair.toUpstream.splice(0)) pair.upstream.write(chunk);
      for (const chunk of pair.toClient.splice(0)) pair.client.write(chunk);
    }
  }

  async forward(): Promise<void> {
    if (this.mode === 'pause') {
      this.resume();
      return;
    }
    this.mode = 'forward';
    this.dropAll();
    if (!this.server) await this.start(this.port);
  }

  /** Connections currently open through the proxy (client side). */
  get openConnections(): number {
    return this.pairs.size;
  }

  async close(): Promise<void> {
    this.dropAll();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private deliver(pair: Pair, direction: 'toUpstream' | 'toClient', chunk: Buffer): void {
    if (this.mode === 'pause') {
      pair[direction].push(chunk);
      return;
    }
    (direction === 'toUpstream' ? pair.upstream : pair.client).write(chunk);
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
  }

  private dropAll(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    this.pairs.clear();
  }
}

/**
 * The service on a fresh server database reached through a TcpProxy, which a test can pause (a partition) or close
 * (connection refused). Server engine only (TEST_DATABASE_URL).
 */
export async function appBehindProxy(
  env: Record<string, string> = {},
): Promise<{ app: TestApp; proxy: TcpProxy }> {
  const db = await freshDatabase();
  const target = new URL(db.url!);
  const proxy = await new TcpProxy(target.hostname, Number(target.port || 5432)).start();
  const viaProxy = new URL(db.url!);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  const app = await TestApp.start(
    { DATABASE_URL: viaProxy.toString(), ...env },
    { ...db, url: viaProxy.toString() },
  );
  return { app, proxy };
}
