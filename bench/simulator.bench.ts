/**
 * Simulator benchmark: 500-record spot-record pages at 1,000,000 records,
 * rate limits and faults off. Measures generation time and memory, the
 * in-process cost of a page (query + JSON), and HTTP pages/s and latency
 * over one keep-alive connection and over 4 concurrent ones.
 * Last line: one JSON object with the figures.
 */
import { createHmac } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client } from 'undici';
import { ByteWriter } from '../src/simulator/data/byte-writer.ts';
import { startSimulator } from '../src/simulator/index.ts';

const DAY = 86_400_000;
const SPOT = '/api/v2/tax/spot-record';
const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);
const SEQUENTIAL_PAGES = 3_000;
const CONCURRENT_PAGES = 3_000;
const CONCURRENCY = 4;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function summarize(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1)! };
}

const round = (value: number, places = 3) => Number(value.toFixed(places));

/** The records' ids of a spot-record page, found by scanning the text. */
function idsOf(text: string): { id: string }[] {
  const ids: { id: string }[] = [];
  let at = text.indexOf('{"id":"');
  while (at >= 0) {
    const start = at + 7;
    const end = text.indexOf('"', start);
    ids.push({ id: text.slice(start, end) });
    at = text.indexOf('{"id":"', end);
  }
  return ids;
}

// A full collection before each phase, so generation garbage is not charged to the pages.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

async function main(): Promise<void> {
  collect();
  const memBefore = process.memoryUsage();
  const genStart = performance.now();
  const sim = await startSimulator({ scale: 'bench', now: NOW, rateLimits: { enabled: false }, admin: true });
  const generationMs = performance.now() - genStart;
  collect();
  const memAfter = process.memoryUsage();
  const dataMb = (memAfter.heapUsed + memAfter.arrayBuffers - memBefore.heapUsed - memBefore.arrayBuffers) / 1e6;
  const records = sim.context.dataOf(sim.demo.uid).spot.size;

  // Windows: 30-day windows spread over the year, paged by idLessThan, restarting when a window runs dry.
  let windowIndex = 0;
  let cursor: string | undefined;
  const nextQuery = (lastPage?: { id: string }[]) => {
    if (lastPage && lastPage.length === 500) cursor = lastPage.at(-1)!.id;
    else {
      windowIndex = (windowIndex + 7) % 12;
      cursor = undefined;
    }
    const endTime = NOW - windowIndex * 30 * DAY;
    const params: Record<string, string> = {
      endTime: String(endTime),
      limit: '500',
      startTime: String(endTime - 30 * DAY),
    };
    if (cursor) params.idLessThan = cursor;
    return Object.keys(params)
      .sort()
      .map((key) => `${key}=${params[key]}`)
      .join('&');
  };

  const store = sim.context.dataOf(sim.demo.uid).spot;
  const writer = new ByteWriter();
  const inProcess: number[] = [];
  for (let i = 0; i < 2_500; i++) {
    const endTime = NOW - (i % 12) * 30 * DAY;
    const t0 = performance.now();
    const page = store.query({ startTime: endTime - 30 * DAY, endTime, limit: 500, now: NOW });
    store.writeJson(page, writer.reset());
    writer.toBuffer();
    // The first 500 pages warm the JIT up.
    if (i >= 500) inProcess.push(performance.now() - t0);
  }

  const headersFor = (query: string) => {
    const timestamp = String(Date.now());
    const sign = createHmac('sha256', sim.demo.secretKey).update(`${timestamp}GET${SPOT}?${query}`).digest('base64');
    return {
      'access-key': sim.demo.apiKey,
      'access-sign': sign,
      'access-passphrase': sim.demo.passphrase,
      'access-timestamp': timestamp,
      locale: 'en-US',
    };
  };
  const clients = Array.from({ length: CONCURRENCY }, () => new Client(sim.url, { pipelining: 1 }));
  let shortPages = 0;
  let served = 0;
  const fetchPage = async (client: Client, query: string) => {
    const started = performance.now();
    const res = await client.request({ method: 'GET', path: `${SPOT}?${query}`, headers: headersFor(query) });
    const text = await res.body.text();
    const elapsed = performance.now() - started;
    if (res.statusCode !== 200 || !text.startsWith('{"code":"00000"')) throw new Error(`bench: HTTP ${res.statusCode}`);
    // The client's own JSON parsing is not the simulator's cost: read ids by scanning, parse fully now and then.
    if (++served % 50 === 0) JSON.parse(text);
    return { elapsed, page: idsOf(text) };
  };

  collect();
  let last: { id: string }[] | undefined;
  for (let i = 0; i < 300; i++) last = (await fetchPage(clients[0]!, nextQuery(last))).page; // warm-up
  const sequential: number[] = [];
  const seqStart = performance.now();
  for (let i = 0; i < SEQUENTIAL_PAGES; i++) {
    const { elapsed, page } = await fetchPage(clients[0]!, nextQuery(last));
    if (page.length < 500) shortPages++;
    sequential.push(elapsed);
    last = page;
  }
  const sequentialSeconds = (performance.now() - seqStart) / 1000;

  const concurrent: number[] = [];
  const concStart = performance.now();
  let issued = 0;
  await Promise.all(
    clients.map(async (client) => {
      let own: { id: string }[] | undefined;
      while (issued < CONCURRENT_PAGES) {
        issued++;
        const { elapsed, page } = await fetchPage(client, nextQuery(own));
        concurrent.push(elapsed);
        own = page;
      }
    }),
  );
  const concurrentSeconds = (performance.now() - concStart) / 1000;
  await Promise.all(clients.map((client) => client.close()));
  await sim.close();

  const seq = summarize(sequential);
  const conc = summarize(concurrent);
  const proc = summarize(inProcess);
  const figures = {
    bench: 'simulator',
    spotRecords: records,
    generationMs: Math.round(generationMs),
    dataMemoryMb: round(dataMb, 1),
    inProcessPageP50Ms: round(proc.p50),
    inProcessPageP99Ms: round(proc.p99),
    sequentialPagesPerSecond: Math.round(SEQUENTIAL_PAGES / sequentialSeconds),
    sequentialP50Ms: round(seq.p50),
    sequentialP99Ms: round(seq.p99),
    sequentialMaxMs: round(seq.max),
    concurrency: CONCURRENCY,
    concurrentPagesPerSecond: Math.round(CONCURRENT_PAGES / concurrentSeconds),
    concurrentP99Ms: round(conc.p99),
    shortPages,
    p99TargetMs: 5,
    p99UnderTarget: seq.p99 < 5,
  };
  const rows: [string, string][] = [
    ['spot records', records.toLocaleString('en-US')],
    ['generation (whole simulator)', `${figures.generationMs} ms`],
    ['data memory (heap + buffers)', `${figures.dataMemoryMb} MB`],
    ['in-process page (query + JSON) p50 / p99', `${figures.inProcessPageP50Ms} / ${figures.inProcessPageP99Ms} ms`],
    ['HTTP, 1 connection: pages/s', String(figures.sequentialPagesPerSecond)],
    [
      'HTTP, 1 connection: p50 / p99 / max',
      `${figures.sequentialP50Ms} / ${figures.sequentialP99Ms} / ${figures.sequentialMaxMs} ms`,
    ],
    [`HTTP, ${CONCURRENCY} connections: pages/s`, String(figures.concurrentPagesPerSecond)],
    [`HTTP, ${CONCURRENCY} connections: p99`, `${figures.concurrentP99Ms} ms`],
    ['p99 target (1 connection)', `< 5 ms: ${figures.p99UnderTarget ? 'met' : 'NOT met'}`],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  process.stdout.write('Simulator: 500-record spot-record pages, rate limits and faults off\n');
  for (const [name, value] of rows) process.stdout.write(`  ${name.padEnd(width)}  ${value}\n`);
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:simulator failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
