import { Client } from 'undici';

import { LeanHttpClient, type LeanResponse } from './lean-http-client.ts';

/** A keep-alive connection a latency benchmark sends its GETs over. */
export interface PageTransport {
  get(path: string, headers: Record<string, string>): Promise<LeanResponse>;
  close(): Promise<void> | void;
}

export type ClientKind = 'lean' | 'undici';

/** Opens one connection with the named client; 'undici' is kept to show what a heavier client adds. */
export async function openTransport(kind: ClientKind, url: string): Promise<PageTransport> {
  if (kind === 'lean') return LeanHttpClient.connect(url);
  const client = new Client(url, { pipelining: 1 });
  return {
    async get(path, headers) {
      const res = await client.request({ method: 'GET', path, headers });
      return { status: res.statusCode, body: Buffer.from(await res.body.arrayBuffer()) };
    },
    close: () => client.close(),
  };
}

export interface Latencies {
  samples: number;
  pagesPerSecond: number;
  p50: number;
  p99: number;
  max: number;
}

export const round = (value: number, places = 3) => Number(value.toFixed(places));

export function summarize(samples: number[], seconds: number): Latencies {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!);
  return {
    samples: samples.length,
    pagesPerSecond: Math.round(samples.length / seconds),
    p50: at(0.5),
    p99: at(0.99),
    max: round(sorted.at(-1)!),
  };
}
