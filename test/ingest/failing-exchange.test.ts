import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createRuntime, scaledBudgets } from '../../jobs/composition/create-runtime.ts';
import { type RunningWorkers, startWorkers } from '../../jobs/composition/workers.ts';
import type { Runtime } from '../../jobs/runtime.ts';
import { createMetricsRegistry } from '../../src/app/observability/scrape-metrics.ts';
import { startBackfill, type StartedBackfill } from '../../src/app/services/backfill.ts';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.ts';
import { watchWindows, WindowsFailedError } from '../../src/cli/watch-windows.ts';
import { loadConfig } from '../../src/config/config.ts';
import { RateBudget } from '../../src/exchange/index.ts';
import { streamStatuses } from '../../src/ingest/coverage/stream-status.ts';
import { planRetries } from '../../src/ingest/retry-plan.ts';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { randomPrefix, TEST_REDIS_URL } from '../helpers/test-redis.ts';

const DAY = 86_400_000;
/** The client's attempts per call, and the queue's per window: small, so a failing window fails fast. */
const CLIENT_ATTEMPTS = 3;
const QUEUE_ATTEMPTS = 2;
/** How long a backfill of a failing exchange may take here before it counts as never ending. */
const BOUND_MS = 45_000;
const SPOT_PATH = '/api/v2/tax/spot-record';
const BAD_GATEWAY =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

/**
 * A reverse proxy in front of the simulator, as a load balancer is in front of the exchange: it
 * forwards the next `passing` requests, then answers every one with nginx's 502 page.
 */
class BreakingProxy {
  passing = 0;
  /** The path of each request answered with the 502 page. */
  readonly failed: string[] = [];
  readonly server: http.Server;

  constructor(target: string) {
    this.server = http.createServer((request, response) => {
      if (this.passing <= 0) {
        this.failed.push(new URL(request.url ?? '/', target).pathname);
        response.writeHead(502, { 'content-type': 'text/html' }).end(BAD_GATEWAY);
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
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
}

const db = useTestDatabase('failingexchange');
const budgetPrefix = randomPrefix('budget');
let sim: RunningSimulator;
let proxy: BreakingProxy;
let runtime: Runtime;
let workers: RunningWorkers;
let closedPort: number;
let healthy: ReturnType<RunningSimulator['createAccount']>;

beforeAll(async () => {
  // Spot records at 2 requests per second: every retry after a failure meets a spent budget (the
  // exchange's own 1/s does too), which is what kept a failing spot window from ever failing.
  sim = await startSimulator({ scale: 'tiny', rateLimits: { enabled: true, factor: 2 } });
  proxy = new BreakingProxy(sim.url);
  await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
  const nobody = http.createServer();
  await new Promise<void>((resolve) => nobody.listen(0, '127.0.0.1', resolve));
  closedPort = (nobody.address() as AddressInfo).port;
  await new Promise((resolve) => nobody.close(resolve));

  healthy = sim.createAccount({ broker: true, uta: true, withData: true });
  const config = loadConfig({ DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, NODE_ENV: 'test' });
  runtime = createRuntime(config, {
    prefix: randomPrefix('failingexchange').replaceAll(':', '-'),
    clientOverrides: {
      rateBudget: { prefix: budgetPrefix, perSecond: scaledBudgets(2) },
      retry: { maxAttempts: CLIENT_ATTEMPTS, baseDelayMs: 20, maxDelayMs: 200 },
    },
    jobOptions: { ingest: { attempts: QUEUE_ATTEMPTS, backoff: { type: 'fixed', delay: 200 } } },
  });
  await runtime.accounts.add({
    name: 'broken',
    baseUrl: proxy.url,
    ...sim.demo,
    isBrokerParent: true,
    isUnifiedAccount: true,
  });
  await runtime.accounts.add({
    name: 'healthy',
    baseUrl: sim.url,
    ...healthy,
    isBrokerParent: true,
    isUnifiedAccount: true,
  });
  await runtime.accounts.add({
    name: 'unreachable',
    baseUrl: `http://127.0.0.1:${closedPort}`,
    ...sim.createAccount({ broker: true, uta: true, withData: true }),
    isBrokerParent: true,
    isUnifiedAccount: true,
  });
  workers = startWorkers(runtime, { concurrency: 4 });
});
afterAll(async () => {
  await workers?.close();
  const keys = [
    ...(await runtime.redis.keys(`${runtime.prefix}:*`)),
    ...(await runtime.redis.keys(`${budgetPrefix}:*`)),
  ];
  if (keys.length > 0) await runtime.redis.del(...keys);
  await runtime.close();
  await new Promise((resolve) => proxy?.server.close(resolve));
  await sim?.close();
});

async function windowRows(started: StartedBackfill) {
  const result = await runtime.pool.query<{ status: string; attempts: number; last_error: string | null }>(
    `SELECT status::text, attempts, last_error FROM sync_window WHERE id = ANY($1::uuid[]) ORDER BY window_start`,
    [started.windows.map((w) => w.id)],
  );
  return result.rows;
}

/**
 * What the backfill command's watch ended with (its error, or 'done'), or, once `BOUND_MS` have
 * passed, the windows as they stand: a backfill that never ends must fail the test, not hang it.
 */
async function outcomeOf(started: StartedBackfill): Promise<unknown> {
  const watching = watchWindows(runtime, started, { title: 'backfill', inProcessWorker: true }).then(
    () => 'done',
    (error: unknown) => error,
  );
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<{ stillRunningAfterMs: number }>((resolve) => {
    timer = setTimeout(() => resolve({ stillRunningAfterMs: BOUND_MS }), BOUND_MS);
  });
  const outcome = await Promise.race([watching, bound]);
  clearTimeout(timer);
  if (outcome instanceof Object && 'stillRunningAfterMs' in outcome) {
    return { ...outcome, windows: await windowRows(started) };
  }
  return outcome;
}

describe('an exchange that keeps failing during a backfill', () => {
  it('fails each spot window with its 502 after bounded attempts: status shows it, the failed-window alert fires, the backfill exits 1, a later run reads it', async () => {
    // The backfill asks the exchange's clock itself: that first request gets through, then every one is a 502.
    proxy.passing = 1;
    const now = Date.now();
    const started = await startBackfill(runtime, { account: 'broken', stream: 'spot', from: now - 80 * DAY, to: now });
    expect(started.windows.length).toBeGreaterThanOrEqual(3);
    const began = Date.now();

    const outcome = await outcomeOf(started);
    expect(outcome, JSON.stringify(outcome)).toBeInstanceOf(WindowsFailedError);
    expect(Date.now() - began).toBeLessThan(BOUND_MS);
    expect(exitCodeFor(outcome)).toBe(EXIT.failed);

    const windows = await windowRows(started);
    for (const window of windows) {
      expect(window.status).toBe('failed');
      expect(window.last_error).toMatch(/^ExchangeServerError: spotRecord: HTTP 502 502 no JSON body$/);
      // Each try of the queue: its start and the client's failed requests; never a budget wait.
      expect(window.attempts).toBeGreaterThanOrEqual(QUEUE_ATTEMPTS + 1);
      expect(window.attempts).toBeLessThanOrEqual(QUEUE_ATTEMPTS * (1 + CLIENT_ATTEMPTS));
    }
    // The exchange was asked no more often than the two retry policies allow.
    expect(proxy.failed.every((path) => path === SPOT_PATH)).toBe(true);
    expect(proxy.failed.length).toBeGreaterThanOrEqual(started.windows.length * QUEUE_ATTEMPTS);
    expect(proxy.failed.length).toBeLessThanOrEqual(started.windows.length * QUEUE_ATTEMPTS * CLIENT_ATTEMPTS);

    // `ledgerline status`: the range is failed, with the 502 as its last failure.
    const { accountId } = started.windows[0]!;
    const [spot] = (await streamStatuses(runtime.pool, accountId)).filter((s) => s.stream === 'spot');
    const first = started.windows[0]!.start;
    const last = started.windows.at(-1)!.end;
    expect(spot!.failed).toEqual([{ start: first, end: last }]);
    expect(spot!.lastFailure?.error).toMatch(/HTTP 502/);

    // The failed-window alert rule (README: ledgerline_windows{status="failed"} > 0) sees them.
    const page = await createMetricsRegistry(runtime).metrics();
    expect(page).toContain(`ledgerline_windows{stream="spot",status="failed"} ${started.windows.length}`);

    // The next sync's retry plan takes them up; with the exchange back, the same backfill finishes them.
    const plan = await planRetries(runtime.pool, accountId, ['spot'], Date.now());
    expect(plan.windows.map((w) => w.id).sort()).toEqual(started.windows.map((w) => w.id).sort());
    proxy.passing = Number.POSITIVE_INFINITY;
    const again = await startBackfill(runtime, { account: 'broken', stream: 'spot', from: first, to: last, now });
    expect(again.enqueued).toBe(started.windows.length);
    expect(await outcomeOf(again)).toBe('done');
    expect((await windowRows(again)).map((w) => w.status)).toEqual(started.windows.map(() => 'done'));
  }, 120_000);

  it('fails the window of an unreachable exchange with its network error, within the bound', async () => {
    const now = Date.now();
    const started = await startBackfill(runtime, {
      account: 'unreachable',
      stream: 'spot',
      from: now - 20 * DAY,
      to: now,
      now,
    });
    const began = Date.now();
    const outcome = await outcomeOf(started);
    expect(outcome, JSON.stringify(outcome)).toBeInstanceOf(WindowsFailedError);
    expect(Date.now() - began).toBeLessThan(BOUND_MS);
    const [window] = await windowRows(started);
    expect(window!.status).toBe('failed');
    expect(window!.last_error).toMatch(/^ExchangeNetworkError: spotRecord: NETWORK ECONNREFUSED: /);
    expect(window!.attempts).toBeLessThanOrEqual(QUEUE_ATTEMPTS * (1 + CLIENT_ATTEMPTS));
  }, 60_000);

  it('counts no attempt and records no error for budget waits alone: an account at its budget is healthy', async () => {
    // Its budget spent for the next 2 s (as after a 429): every window's first request waits, away from its slot.
    await new RateBudget(runtime.redis, { prefix: budgetPrefix }).pause(`spotRecord:uid:${healthy.uid}`, 2_000);
    const now = Date.now();
    const started = await startBackfill(runtime, {
      account: 'healthy',
      stream: 'spot',
      from: now - 80 * DAY,
      to: now,
      now,
    });
    expect(started.windows.length).toBeGreaterThanOrEqual(3);
    expect(await outcomeOf(started)).toBe('done');
    for (const window of await windowRows(started)) {
      expect(window).toEqual({ status: 'done', attempts: 1, last_error: null });
    }
  }, 60_000);
});
