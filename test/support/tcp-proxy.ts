import { createServer, Server, Socket, connect } from 'node:net';
import { AddressInfo } from 'node:net';

/**
 * A TCP proxy in front of the PostgreSQL server, so a test can take "the database" away from the service and give
 * it back without touching the real server: `refuse` closes every connection and refuses new ones, `hang` accepts
 * connections but never forwards a byte (a network black hole), `forward` restores service.
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private mode: 'forward' | 'hang' = 'forward';
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
      client.pipe(upstream).pipe(client);
      const end = () => {
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

  async forward(): Promise<void> {
    this.mode = 'forward';
    this.dropAll();
    if (!this.server) await this.start(this.port);
  }

  async close(): Promise<void> {
    this.dropAll();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
  }

  private dropAll(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }
}
