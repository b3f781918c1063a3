import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type FakeHandler = (request: RecordedRequest, response: ServerResponse, index: number) => void;

export interface FakeExchange {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Envelope of a successful answer. */
export function ok(data: unknown): string {
  return JSON.stringify({ code: '00000', msg: 'success', requestTime: Date.now(), data });
}

export function fail(code: string, msg: string): string {
  return JSON.stringify({ code, msg, requestTime: Date.now(), data: null });
}

/**
 * A bare HTTP server on a random port for unit tests of the transport and the
 * retry rules, where each answer (reset, truncation, 500) must be exact. Tests
 * of the exchange's behaviour use the simulator instead.
 */
export async function startFakeExchange(handler: FakeHandler): Promise<FakeExchange> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      handler(recorded, res, requests.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function send(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}
