import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local webhook endpoint that keeps every JSON body POSTed to it, for alert tests. */
export interface WebhookReceiver {
  /** A Slack-like URL on 127.0.0.1 (its path plays the webhook's secret). */
  readonly url: string;
  readonly received: Record<string, unknown>[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: Record<string, unknown>[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      received.push(JSON.parse(body) as Record<string, unknown>);
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/T000/B000/secret-path`;
  return {
    url,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
