import { createServer, type Server, Socket } from 'node:net';

/**
 * Postgres behind a TCP relay this test can cut: an outage of the real database as its clients
 * see it (connections dropped, new ones closed at once), without stopping the server others share.
 */
export class CuttableRelay {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #up = true;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(host: string, port: number): Promise<CuttableRelay> {
    const server = createServer();
    const relay = new CuttableRelay(server);
    server.on('connection', (inbound) => relay.#accept(inbound, host, port));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  get port(): number {
    return (this.#server.address() as { port: number }).port;
  }

  /** The same database URL, through this relay. */
  relayed(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  cut(): void {
    this.#up = false;
    for (const socket of this.#sockets) socket.destroy();
  }

  restore(): void {
    this.#up = true;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  #accept(inbound: Socket, host: string, port: number): void {
    if (!this.#up) {
      inbound.destroy();
      return;
    }
    const outbound = new Socket();
    for (const socket of [inbound, outbound]) {
      this.#sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.#sockets.delete(socket);
        inbound.destroy();
        outbound.destroy();
      });
    }
    outbound.connect(port, host);
    inbound.pipe(outbound).pipe(inbound);
  }
}
