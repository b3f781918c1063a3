import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** How the proxy answers a request it does not forward. */
export type Fault = (request: http.IncomingMessage, response: http.ServerResponse) => void;

/**
 * The exchange's address as a reverse proxy in front of the simulator, as a load balancer is in
 * front of the exchange: it forwards the next `passing` requests (a backfill's clock probe, say),
 * then answers every other with `fault` (a 502 page, a body that never ends, nothing at all).
 */
export class FaultyProxy {
  passing = 0;
  /** The path of each request the fault answered. */
  readonly faulted: string[] = [];
  readonly server: http.Server;
  readonly #sockets = new Set<Socket>();

  constructor(target: string, fault: Fault) {
    this.server = http.createServer((request, response) => {
      if (this.passing <= 0) {
        this.faulted.push(new URL(request.url ?? '/', target).pathname);
        fault(request, response);
        return;
      }
      this.passing -= 1;
      const upstream = http.request(
        new URL(request.url ?? '/', target),
        { method: request.method, headers: request.headers },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      upstream.on('error', () => response.destroy());
      request.pipe(upstream);
    });
    this.server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Closes the server and every connection still open (an answer that never ends keeps its own). */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
