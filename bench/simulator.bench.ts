/**
 * Simulator benchmark: 500-record spot-record pages at 1,000,000 records,
 * rate limits and faults off.
 *  - generation time and data memory, and the in-process cost of a page (query + JSON);
 *  - HTTP pages/s and latency against the simulator as its own process (as the demo and
 *    the pipeline run it), over one keep-alive connection and over 4;
 *  - the same over one connection with the simulator inside the benchmark's process (as tests run it).
 * Last line: one JSON object with the figures.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { ByteWriter } from '../src/simulator/data/byte-writer.ts';
import { type DemoCredentials, startSimulator } from '../src/simulator/index.ts';
import { type ClientKind, type Latencies, openTransport, type PageTransport, round, summarize } from './lib/latency.ts';
import { transportFloor } from './lib/transport-floor.ts';

const DAY = 86_400_000;
const SPOT = '/api/v2/tax/spot-record';
const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);
// Measured here: both processes' JIT keeps compiling for the first ~3,000 requests, and
// samples taken during it carry 2-10 ms pauses that steady-state serving never sees.
const WARMUP = 3_000;
const PAGES = 3_000;
const CONCURRENCY = 4;

// A full collection before each phase, so generation garbage is not charged to the pages.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

const verdict = (met: boolean) => (met ? 'met' : 'NOT met');

/** Queries that walk 30-day windows across the year by idLessThan, moving to another window when one runs dry. */
interface PageSummary {
  count: number;
  lastId: string;
}

function queryWalker(): (previous?: PageSummary) => string {
  let window = 0;
  return (previous) => {
    let cursor: string | undefined;
    if (previous && previous.count === 500) cursor = previous.lastId;
    else window = (window + 7) % 12;
    const endTime = NOW - window * 30 * DAY;
    const params = `endTime=${endTime}${cursor ? `&idLessThan=${cursor}` : ''}&limit=500&startTime=${endTime - 30 * DAY}`;
    return params;
  };
}

const ID_MARK = Buffer.from('{"id":"');
const SUCCESS = Buffer.from('{"code":"00000"');

/** How many records a page holds and its last id, by scanning the bytes: the client's JSON parsing is not the simulator's cost. */
function scanPage(body: Buffer): PageSummary {
  let count = 0;
  let at = body.indexOf(ID_MARK);
  let last = -1;
  while (at >= 0) {
    count++;
    last = at;
    at = body.indexOf(ID_MARK, at + ID_MARK.length);
  }
  if (last < 0) return { count: 0, lastId: '' };
  const start = last + ID_MARK.length;
  return { count, lastId: body.toString('latin1', start, body.indexOf(34, start)) };
}

async function fetchPage(transport: PageTransport, demo: DemoCredentials, query: string, check: boolean) {
  const timestamp = String(Date.now());
  const sign = createHmac('sha256', demo.secretKey).update(`${timestamp}GET${SPOT}?${query}`).digest('base64');
  const started = performance.now();
  const res = await transport.get(`${SPOT}?${query}`, {
    'access-key': demo.apiKey,
    'access-sign': sign,
    'access-passphrase': demo.passphrase,
    'access-timestamp': timestamp,
  });
  const elapsed = performance.now() - started;
  if (res.status !== 200 || res.body.indexOf(SUCCESS) !== 0) throw new Error(`HTTP ${res.status}: ${res.body}`);
  if (check) JSON.parse(res.body.toString('utf8'));
  return { elapsed, page: scanPage(res.body), bytes: res.body.length };
}

/** `connections` connections each walking windows until `pages` pages are served in total, after a warm-up on the first. */
async function measure(
  url: string,
  demo: DemoCredentials,
  connections: number,
  kind: ClientKind,
  warmup = WARMUP,
): Promise<Latencies> {
  const transports = await Promise.all(Array.from({ length: connections }, () => openTransport(kind, url)));
  let warm: PageSummary | undefined;
  const walk = queryWalker();
  for (let i = 0; i < warmup; i++) warm = (await fetchPage(transports[0]!, demo, walk(warm), false)).page;
  const samples: number[] = [];
  let issued = 0;
  const started = performance.now();
  await Promise.all(
    transports.map(async (transport) => {
      const next = queryWalker();
      let last: PageSummary | undefined;
      while (issued < PAGES) {
        issued++;
        const fetched = await fetchPage(transport, demo, next(last), issued % 50 === 0);
        samples.push(fetched.elapsed);
        last = fetched.page;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(transports.map((transport) => transport.close()));
  return summarize(samples, seconds);
}

async function spawnSimulator(): Promise<{ child: ChildProcess; url: string; demo: DemoCredentials }> {
  const args = ['--import', 'tsx', 'src/simulator/main.ts', '--port', '0', '--scale', 'bench', '--no-rate-limits'];
  const child = spawn(process.execPath, [...args, '--now', String(NOW)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/passphrase\s+\S+\n/.test(out)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`simulator exited with ${String(code)}`)));
  });
  const field = (label: string) => new RegExp(`${label}\\s+(\\S+)`).exec(out)![1]!;
  return {
    child,
    url: /listening on (\S+)/.exec(out)![1]!,
    demo: {
      uid: field('uid'),
      apiKey: field('API key'),
      secretKey: field('secret key'),
      passphrase: field('passphrase'),
    },
  };
}

async function main(): Promise<void> {
  // HTTP against the simulator as its own process first, while this process is still small.
  const external = await spawnSimulator();
  let separate: Latencies;
  let separateConcurrent: Latencies;
  let separateUndici: Latencies;
  let pageBytes: number;
  try {
    collect();
    separate = await measure(external.url, external.demo, 1, 'lean');
    // The server is warm by now; the warm-up only settles the new connections.
    separateConcurrent = await measure(external.url, external.demo, CONCURRENCY, 'lean', 300);
    collect();
    separateUndici = await measure(external.url, external.demo, 1, 'undici');
    const transport = await openTransport('lean', external.url);
    pageBytes = (await fetchPage(transport, external.demo, queryWalker()(), false)).bytes;
    await transport.close();
  } finally {
    const exited = new Promise((resolve) => external.child.once('exit', resolve));
    external.child.kill('SIGTERM');
    await exited;
  }
  collect();
  const floor = await transportFloor(pageBytes, 'lean', { warmup: WARMUP, samples: PAGES });
  collect();
  const floorUndici = await transportFloor(pageBytes, 'undici', { warmup: WARMUP, samples: PAGES });

  collect();
  const before = process.memoryUsage();
  const genStart = performance.now();
  const sim = await startSimulator({ scale: 'bench', now: NOW, rateLimits: { enabled: false } });
  const generationMs = Math.round(performance.now() - genStart);
  collect();
  const after = process.memoryUsage();
  const dataMemoryMb = round((after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers) / 1e6, 1);
  const store = sim.context.dataOf(sim.demo.uid).spot;

  const writer = new ByteWriter();
  const pageCosts: number[] = [];
  const walk = queryWalker();
  let last: PageSummary | undefined;
  for (let i = 0; i < 2_500; i++) {
    const params = new URLSearchParams(walk(last));
    const t0 = performance.now();
    const found = store.query({
      startTime: Number(params.get('startTime')),
      endTime: Number(params.get('endTime')),
      ...(params.get('idLessThan') ? { idLessThan: Number(params.get('idLessThan')) } : {}),
      limit: 500,
      now: NOW,
    });
    store.writeJson(found, writer.reset());
    // The first 500 pages warm the JIT up.
    if (i >= 500) pageCosts.push(performance.now() - t0);
    last = { count: found.length, lastId: found.length > 0 ? store.id(found.at(-1)!) : '' };
  }
  const inProcessPage = summarize(pageCosts, 1);

  collect();
  const sameProcess = await measure(sim.url, sim.demo, 1, 'lean');
  await sim.close();

  const figures = {
    bench: 'simulator',
    spotRecords: store.size,
    pageSize: 500,
    generationMs,
    dataMemoryMb,
    inProcessPageP50Ms: inProcessPage.p50,
    inProcessPageP99Ms: inProcessPage.p99,
    pagesPerSecond: separate.pagesPerSecond,
    p50Ms: separate.p50,
    p99Ms: separate.p99,
    maxMs: separate.max,
    concurrentConnections: CONCURRENCY,
    concurrentPagesPerSecond: separateConcurrent.pagesPerSecond,
    concurrentP99Ms: separateConcurrent.p99,
    undiciClientP50Ms: separateUndici.p50,
    undiciClientP99Ms: separateUndici.p99,
    sameProcessPagesPerSecond: sameProcess.pagesPerSecond,
    sameProcessP99Ms: sameProcess.p99,
    pageBytes,
    transportFloorP50Ms: floor.p50,
    transportFloorP99Ms: floor.p99,
    p99AboveFloorMs: round(separate.p99 - floor.p99),
    undiciFloorP50Ms: floorUndici.p50,
    undiciFloorP99Ms: floorUndici.p99,
    warmupPages: WARMUP,
    p99TargetMs: 5,
    p99UnderTarget: separate.p99 < 5,
    sameProcessP99UnderTarget: sameProcess.p99 < 5,
    // Latency tails on a shared machine follow its load: recorded beside the figures.
    cpus: availableParallelism(),
    loadAverage1m: round(loadavg()[0]!, 2),
  };
  const rows: [string, string][] = [
    ['spot records', store.size.toLocaleString('en-US')],
    ['generation (whole simulator)', `${generationMs} ms`],
    ['data memory (heap + buffers)', `${dataMemoryMb} MB`],
    ['page in process (query + JSON): p50 / p99', `${inProcessPage.p50} / ${inProcessPage.p99} ms`],
    ['HTTP, own process, 1 connection: pages/s', String(separate.pagesPerSecond)],
    ['HTTP, own process, 1 connection: p50 / p99 / max', `${separate.p50} / ${separate.p99} / ${separate.max} ms`],
    [`HTTP, own process, ${CONCURRENCY} connections: pages/s`, String(separateConcurrent.pagesPerSecond)],
    [`HTTP, own process, ${CONCURRENCY} connections: p99`, `${separateConcurrent.p99} ms`],
    ['HTTP, same process, 1 connection: pages/s', String(sameProcess.pagesPerSecond)],
    ['HTTP, same process, 1 connection: p99', `${sameProcess.p99} ms`],
    [
      `transport floor (bare node:http, fixed ${Math.round(pageBytes / 1000)} kB): p50 / p99`,
      `${floor.p50} / ${floor.p99} ms`,
    ],
    ['simulator p99 above the floor (own process)', `${round(separate.p99 - floor.p99)} ms`],
    ['with undici as the client: simulator p50 / p99', `${separateUndici.p50} / ${separateUndici.p99} ms`],
    ['with undici as the client: floor p50 / p99', `${floorUndici.p50} / ${floorUndici.p99} ms`],
    [
      'target: p99 < 5 ms (own process / same process)',
      `${verdict(figures.p99UnderTarget)} / ${verdict(figures.sameProcessP99UnderTarget)}`,
    ],
    ['machine: cpus, 1-minute load average', `${figures.cpus}, ${figures.loadAverage1m}`],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  process.stdout.write(
    `Simulator: ${PAGES} pages of 500 spot records each after ${WARMUP} warm-up pages, rate limits and faults off\n`,
  );
  for (const [name, value] of rows) process.stdout.write(`  ${name.padEnd(width)}  ${value}\n`);
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:simulator failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
