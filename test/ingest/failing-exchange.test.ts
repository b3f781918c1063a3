import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Runtime } from '../../jobs/runtime.ts';
import { createMetricsRegistry } from '../../src/app/observability/scrape-metrics.ts';
import { startBackfill, type StartedBackfill } from '../../src/app/services/backfill.ts';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.ts';
import { WindowsFailedError } from '../../src/cli/watch-windows.ts';
import { RateBudget } from '../../src/exchange/index.ts';
import { streamStatuses } from '../../src/ingest/coverage/stream-status.ts';
import { planRetries } from '../../src/ingest/retry-plan.ts';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.ts';
import { backfillOutcome, windowRows } from '../helpers/backfill-outcome.ts';
import { FaultyProxy } from '../helpers/faulty-proxy.ts';
import { createFewRetriesRuntime, type FewRetriesRuntime } from '../helpers/few-retries-runtime.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const DAY = 86_400_000;
/** The client's attempts per call, and the queue's per window: small, so a failing window fails fast. */
const CLIENT_ATTEMPTS = 3;
const QUEUE_ATTEMPTS = 2;
/** How long a backfill of a failing exchange may take here before it counts as never ending. */
const BOUND_MS = 45_000;
const SPOT_PATH = '/api/v2/tax/spot-record';
const BAD_GATEWAY =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

/** The load balancer's answer while the exchange behind it is down: nginx's 502 page. */
function badGateway(_request: http.IncomingMessage, response: http.ServerResponse): void {
  response.writeHead(502, { 'content-type': 'text/html' }).end(BAD_GATEWAY);
}

const db = useTestDatabase('failingexchange');
let sim: RunningSimulator;
let proxy: FaultyProxy;
let fewRetries: FewRetriesRuntime;
let runtime: Runtime;
let closedPort: number;
let healthy: ReturnType<RunningSimulator['createAccount']>;

beforeAll(async () => {
  // Spot records at 2 requests per second: every retry after a failure meets a spent budget (the
  // exchange's own 1/s does too), which is what kept a failing spot window from ever failing.
  sim = await startSimulator({ scale: 'tiny', rateLimits: { enabled: true, factor: 2 } });
  proxy = new FaultyProxy(sim.url, badGateway);
  await proxy.listen();
  const nobody = http.createServer();
  await new Promise<void>((resolve) => nobody.listen(0, '127.0.0.1', resolve));
  closedPort = (nobody.address() as AddressInfo).port;
  await new Promise((resolve) => nobody.close(resolve));

  healthy = sim.createAccount({ broker: true, uta: true, withData: true });
  fewRetries = createFewRetriesRuntime({
    databaseUrl: db.url,
    label: 'failingexchange',
    rateFactor: 2,
    clientAttempts: CLIENT_ATTEMPTS,
    queueAttempts: QUEUE_ATTEMPTS,
  });
  ({ runtime } = fewRetries);
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
  fewRetries.startWorkers();
});
afterAll(async () => {
  await fewRetries?.close();
  await proxy?.close();
  await sim?.close();
});

const outcomeOf = (started: StartedBackfill) => backfillOutcome(runtime, started, BOUND_MS);

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

    const windows = await windowRows(runtime, started);
    for (const window of windows) {
      expect(window.status).toBe('failed');
      expect(window.last_error).toMatch(/^ExchangeServerError: spotRecord: HTTP 502 502 no JSON body$/);
      // Each try of the queue: its start and the client's failed requests; never a budget wait.
      expect(window.attempts).toBeGreaterThanOrEqual(QUEUE_ATTEMPTS + 1);
      expect(window.attempts).toBeLessThanOrEqual(QUEUE_ATTEMPTS * (1 + CLIENT_ATTEMPTS));
    }
    // The exchange was asked no more often than the two retry policies allow.
    expect(proxy.faulted.every((path) => path === SPOT_PATH)).toBe(true);
    expect(proxy.faulted.length).toBeGreaterThanOrEqual(started.windows.length * QUEUE_ATTEMPTS);
    expect(proxy.faulted.length).toBeLessThanOrEqual(started.windows.length * QUEUE_ATTEMPTS * CLIENT_ATTEMPTS);

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
    expect((await windowRows(runtime, again)).map((w) => w.status)).toEqual(started.windows.map(() => 'done'));
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
    const [window] = await windowRows(runtime, started);
    expect(window!.status).toBe('failed');
    expect(window!.last_error).toMatch(/^ExchangeNetworkError: spotRecord: NETWORK ECONNREFUSED: /);
    expect(window!.attempts).toBeLessThanOrEqual(QUEUE_ATTEMPTS * (1 + CLIENT_ATTEMPTS));
  }, 60_000);

  it('counts no attempt and records no error for budget waits alone: an account at its budget is healthy', async () => {
    // Its budget spent for the next 2 s (as after a 429): every window's first request waits, away from its slot.
    await new RateBudget(runtime.redis, { prefix: fewRetries.budgetPrefix }).pause(
      `spotRecord:uid:${healthy.uid}`,
      2_000,
    );
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
    for (const window of await windowRows(runtime, started)) {
      expect(window).toEqual({ status: 'done', attempts: 1, last_error: null });
    }
  }, 60_000);
});
