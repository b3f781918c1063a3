/**
 * Rate-budget benchmark (issue 4, acceptance 3).
 *
 * Two processes page spot-record (1/s) and history-position (20/s) at the same
 * time, for the same account, against the simulator with its rate limits on.
 * They share one budget through Redis. Prints, per endpoint, the requests the
 * simulator counted in the measured span against what the budget allows, and
 * the simulator's 429 count. "used" is the mean fill of the exchange's sliding
 * second over the span, as the simulator saw the requests arrive. Target: 0
 * HTTP 429 and at least 0.95 of the budget used.
 *
 * For comparison, the same run is then repeated with a fixed-window limiter
 * (rate-limiter-flexible's RateLimiterRedis, callers waiting msBeforeNext) in
 * place of the client's sliding log: it shows why the client does not use one.
 *
 *   npm run bench:ratelimit [-- --seconds 12] [-- --no-compare]
 *
 * The last line is one JSON object with the figures.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

import { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { z } from 'zod';

import type { NamedEndpoint } from '../src/exchange/endpoints.ts';
import { ExchangeRateLimitError } from '../src/exchange/errors/exchange-error.ts';
import { ExchangeClient } from '../src/exchange/exchange-client.ts';
import { planWindows } from '../src/exchange/paging/window-planner.ts';
import { startSimulator } from '../src/simulator/index.ts';
import { historyPositionEndpoint } from '../src/streams/positions/endpoint.ts';
import { pageHistoryPositions } from '../src/streams/positions/pager.ts';
import { spotRecordEndpoint } from '../src/streams/spot/endpoint.ts';
import { pageSpotRecords } from '../src/streams/spot/pager.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PROCESSES = 2;
const LIMITERS: readonly Limiter[] = ['sliding-log', 'fixed-window'];
const STREAMS = [
  { name: 'historyPosition', path: historyPositionEndpoint.path, perSecond: historyPositionEndpoint.perSecond },
  { name: 'spotRecord', path: spotRecordEndpoint.path, perSecond: spotRecordEndpoint.perSecond },
] as const;

type Limiter = 'sliding-log' | 'fixed-window';

interface WorkerTask {
  limiter: Limiter;
  baseUrl: string;
  credentials: { uid: string; apiKey: string; secretKey: string; passphrase: string };
  prefix: string;
  startAt: number;
  deadline: number;
}

interface WorkerReport {
  pages: Record<string, number>;
  records: Record<string, number>;
  retried: number;
  waitedMs: number;
}

// ---------- worker: one process paging both streams until the deadline ----------

/**
 * The comparison: the client with its own budget opened wide, gated instead by
 * rate-limiter-flexible's fixed 1-second windows in Redis (shared by both processes).
 */
class FixedWindowClient extends ExchangeClient {
  private readonly limiters: Record<'historyPosition' | 'spotRecord', RateLimiterRedis>;

  constructor(options: ConstructorParameters<typeof ExchangeClient>[0], redis: Redis, prefix: string) {
    super({
      ...options,
      rateBudget: { ...options.rateBudget, perSecond: { historyPosition: 1000, spotRecord: 1000 } },
    });
    const limiter = (points: number) =>
      new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}:fixed`, points, duration: 1 });
    this.limiters = { historyPosition: limiter(20), spotRecord: limiter(1) };
  }

  // Every history request goes through call(): gated here by endpoint.
  override async call<Req extends z.ZodType, Res extends z.ZodType>(
    endpoint: NamedEndpoint,
    request: Req,
    response: Res,
    params: z.input<Req>,
  ): Promise<z.output<Res>> {
    const name = endpoint.name;
    if (name === 'historyPosition' || name === 'spotRecord') {
      await waitFor(this.limiters[name], `${name}:${this.options.uid}`);
    }
    return super.call(endpoint, request, response, params);
  }
}

async function waitFor(limiter: RateLimiterRedis, key: string): Promise<void> {
  for (;;) {
    try {
      await limiter.consume(key);
      return;
    } catch (refused) {
      if (!(refused instanceof RateLimiterRes)) throw refused;
      await new Promise((resolve) => setTimeout(resolve, refused.msBeforeNext));
    }
  }
}

async function runWorker(task: WorkerTask): Promise<WorkerReport> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const report: WorkerReport = { pages: {}, records: {}, retried: 0, waitedMs: 0 };
  const options = {
    baseUrl: task.baseUrl,
    ...task.credentials,
    redis,
    rateBudget: { prefix: task.prefix, ipKey: 'bench-host' },
  };
  const client =
    task.limiter === 'sliding-log' ? new ExchangeClient(options) : new FixedWindowClient(options, redis, task.prefix);
  const count = (stream: string, items: number) => {
    report.pages[stream] = (report.pages[stream] ?? 0) + 1;
    report.records[stream] = (report.records[stream] ?? 0) + items;
  };
  // Warm the connection pool, the signer and the budget scripts on another endpoint's budget,
  // so the measured endpoints start at full speed together.
  await client.openInterestLimit({ symbol: 'BTCUSDT', category: 'USDT-FUTURES' });
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, task.startAt - Date.now())));
  const running = () => Date.now() < task.deadline;

  // The fixed-window comparison collects 429s by design; when a call's retries
  // run out on them, it counts the failure and goes on (the sliding log must not need this).
  const tolerate = async (body: () => Promise<void>) => {
    try {
      await body();
    } catch (error) {
      if (task.limiter === 'sliding-log' || !(error instanceof ExchangeRateLimitError)) throw error;
      report.retried += 1;
    }
  };
  // Each stream pages its windows newest first, over and over, until the time is up.
  const positions = async () => {
    while (running()) {
      const now = Date.now();
      for (const window of planWindows(historyPositionEndpoint, now - 90 * 86_400_000, now, { now }).reverse()) {
        await tolerate(async () => {
          for await (const page of pageHistoryPositions(client, window, {}, { limit: 5 })) {
            count('historyPosition', page.items.length);
            if (!running()) return;
          }
        });
        if (!running()) return;
      }
    }
  };
  const spot = async () => {
    while (running()) {
      const now = Date.now();
      for (const window of planWindows(spotRecordEndpoint, now - 365 * 86_400_000, now).reverse()) {
        await tolerate(async () => {
          for await (const page of pageSpotRecords(client, window, {}, { limit: 20 })) {
            count('spotRecord', page.items.length);
            if (!running()) return;
          }
        });
        if (!running()) return;
      }
    }
  };
  await Promise.all([positions(), spot()]);
  await client.close();
  redis.disconnect();
  return report;
}

// ---------- coordinator: simulator, two workers, figures ----------

function spawnWorker(task: WorkerTask): Promise<WorkerReport> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--worker'], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let report: WorkerReport | undefined;
    child.on('message', (message) => {
      report = message as WorkerReport;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0 && report) resolve(report);
      else reject(new Error(`worker ${child.pid} exited with code ${String(code)}`));
    });
    child.send(task);
  });
}

/**
 * Request counts of every 1-second window [t, t + 1000) that lies inside the
 * span, t stepping by 1 ms: their mean (the budget used, as the exchange's
 * sliding window sees it) and their maximum (must not exceed the limit).
 */
function slidingWindows(unsorted: number[], from: number, to: number): { mean: number; max: number } {
  const times = unsorted.filter((time) => time >= from && time < to).sort((a, b) => a - b);
  let sum = 0;
  let max = 0;
  let steps = 0;
  let lo = 0;
  let hi = 0;
  for (let t = from; t + 1_000 <= to; t += 1) {
    while (lo < times.length && times[lo]! < t) lo += 1;
    while (hi < times.length && times[hi]! < t + 1_000) hi += 1;
    const inWindow = hi - lo;
    sum += inWindow;
    max = Math.max(max, inWindow);
    steps += 1;
  }
  return { mean: steps === 0 ? 0 : sum / steps, max };
}

function parseSeconds(argv: string[]): number {
  const index = argv.indexOf('--seconds');
  if (index < 0) return 12;
  const seconds = Number(argv[index + 1]);
  if (!Number.isInteger(seconds) || seconds < 10 || seconds > 120) {
    throw new Error('--seconds: must be an integer from 10 to 120');
  }
  return seconds;
}

interface Row {
  endpoint: string;
  allowedPerS: number;
  requests: number;
  achievedPerS: number;
  used: number;
  maxInAnySecond: number;
  http429: number;
  errors: number;
  pagesPerProcess: number[];
}

/** One measured run: a fresh simulator, two worker processes, the figures from the simulator's side. */
async function runPhase(limiter: Limiter, seconds: number): Promise<{ rows: Row[]; http429: number }> {
  const sim = await startSimulator({ seed: 42, scale: 'demo', rateLimits: { enabled: true, factor: 1 } });
  const prefix = `ll:bench:ratelimit:${randomBytes(4).toString('hex')}`;
  const startAt = Date.now() + 3_000; // time for both workers to load and warm up
  const deadline = startAt + seconds * 1_000;
  const task: WorkerTask = { limiter, baseUrl: sim.url, credentials: sim.demo, prefix, startAt, deadline };
  let reports: WorkerReport[];
  try {
    reports = await Promise.all(Array.from({ length: PROCESSES }, () => spawnWorker(task)));
  } finally {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
  const counters = sim.counters.get();
  const log = sim.requestLog.list();
  await sim.close();

  const rows = STREAMS.map(({ name, path, perSecond }) => {
    const allowed = perSecond;
    const times = log.filter((entry) => entry.path === path && entry.status !== 429).map((entry) => entry.time);
    const first = Math.min(...times);
    // Over a sliding second the ideal in [first, first + T) is exactly allowed * T requests.
    const inSpan = times.filter((time) => time < first + seconds * 1_000).length;
    const achieved = inSpan / seconds;
    const windows = slidingWindows(times, first, first + seconds * 1_000);
    return {
      endpoint: name,
      allowedPerS: allowed,
      requests: inSpan,
      achievedPerS: Number(achieved.toFixed(3)),
      // The stricter figure: how full the exchange's sliding second was, on average, from its side.
      used: Number((windows.mean / allowed).toFixed(3)),
      maxInAnySecond: windows.max,
      http429: counters[path]?.rateLimited ?? 0,
      errors: counters[path]?.errors ?? 0,
      pagesPerProcess: reports.map((report) => report.pages[name] ?? 0),
    };
  });
  return { rows, http429: Object.values(counters).reduce((sum, c) => sum + c.rateLimited, 0) };
}

async function coordinate(): Promise<void> {
  const argv = process.argv.slice(2);
  const seconds = parseSeconds(argv);
  const phases: { limiter: Limiter; rows: Row[]; http429: number }[] = [];
  for (const limiter of argv.includes('--no-compare') ? (['sliding-log'] as const) : LIMITERS) {
    phases.push({ limiter, ...(await runPhase(limiter, seconds)) });
  }

  console.log(`\nRate budget: ${PROCESSES} processes, ${seconds} s each run, simulator rate limits on (sliding 1 s)\n`);
  const header = [
    'limiter'.padEnd(13),
    'endpoint'.padEnd(16),
    'allowed/s',
    'requests',
    'achieved/s',
    ' used',
    'max in 1 s',
    'HTTP 429',
    ' pages per process',
  ];
  console.log(header.join('  '));
  for (const phase of phases) {
    for (const row of phase.rows) {
      console.log(
        [
          phase.limiter.padEnd(13),
          row.endpoint.padEnd(16),
          String(row.allowedPerS).padStart(9),
          String(row.requests).padStart(8),
          row.achievedPerS.toFixed(2).padStart(10),
          row.used.toFixed(3).padStart(5),
          String(row.maxInAnySecond).padStart(10),
          String(row.http429).padStart(8),
          `  ${row.pagesPerProcess.join(' + ')}`,
        ].join('  '),
      );
    }
  }
  const client = phases[0]!;
  const pass = client.http429 === 0 && client.rows.every((row) => row.used >= 0.95);
  console.log(
    `\nclient (sliding log): ${client.http429} HTTP 429; target 0 and used >= 0.95: ${pass ? 'met' : 'NOT met'}` +
      (phases[1] ? `; fixed window for comparison: ${phases[1].http429} HTTP 429` : '') +
      '\n',
  );
  const figures = (phase: (typeof phases)[number]) => ({
    http429: phase.http429,
    endpoints: Object.fromEntries(phase.rows.map(({ endpoint, ...rest }) => [endpoint, rest])),
  });
  console.log(
    JSON.stringify({
      bench: 'ratelimit',
      processes: PROCESSES,
      seconds,
      http429: client.http429,
      used: Object.fromEntries(client.rows.map((row) => [row.endpoint, row.used])),
      targetMet: pass,
      slidingLog: figures(client),
      ...(phases[1] ? { fixedWindow: figures(phases[1]) } : {}),
    }),
  );
}

if (process.argv.includes('--worker')) {
  process.once('message', (task) => {
    runWorker(task as WorkerTask).then(
      (report) => process.send?.(report, () => process.exit(0)),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
} else {
  coordinate().catch((error: unknown) => {
    console.error(error);
    // The simulator and the other worker would keep the process alive: stop here.
    process.exit(1);
  });
}
