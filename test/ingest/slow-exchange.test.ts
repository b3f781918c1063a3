import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createRuntime, scaledBudgets } from '../../jobs/composition/create-runtime.ts';
import { type RunningWorkers, startWorkers } from '../../jobs/composition/workers.ts';
import type { Runtime } from '../../jobs/runtime.ts';
import { startBackfill, type StartedBackfill } from '../../src/app/services/backfill.ts';
import { watchWindows, WindowsFailedError } from '../../src/cli/watch-windows.ts';
import { loadConfig } from '../../src/config/config.ts';
import { streamStatuses } from '../../src/ingest/coverage/stream-status.ts';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { randomPrefix, TEST_REDIS_URL } from '../helpers/test-redis.ts';

const DAY = 86_400_000;
/** The client's attempts per call, and the queue's per window: small, so the bound is short. */
const CLIENT_ATTEMPTS = 2;
const QUEUE_ATTEMPTS = 2;
/** EXCHANGE_TIMEOUT_MS (the longest silence) and EXCHANGE_DEADLINE_MS (the whole request). */
const IDLE_MS = 1_000;
const DEADLINE_MS = 2_000;
/** A byte every this often: never silent for EXCHANGE_TIMEOUT_MS, never finished either. */
const TRICKLE_EVERY_MS = 250;
/**
 * docs/operations.md's worst case for one window with these settings: every try spends each of its
 * attempts on a whole deadline, plus the backoffs (at most 200 ms between attempts, 200 ms between
 * tries), plus slack for a loaded machine. Several windows run side by side.
 */
const BOUND_MS = QUEUE_ATTEMPTS * CLIENT_ATTEMPTS * DEADLINE_MS + QUEUE_ATTEMPTS * (CLIENT_ATTEMPTS + 1) * 200 + 15_000;

type Mode = 'trickle' | 'silent';

/**
 * The exchange's address, in front of the simulator: it forwards the first `passing` requests
 * (the backfill's clock probe), then answers spot requests slowly: `trickle` sends the headers and
 * then one byte of a never-ending body every 250 ms; `silent` takes the request and never answers.
 */
class SlowProxy {
  passing = 0;
  mode: Mode = 'silent';
  readonly slowed: string[] = [];
  readonly server: http.Server;
  readonly #sockets = new Set<Socket>();
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(target: string) {
    this.server = http.createServer((request, response) => {
      if (this.passing <= 0) {
        this.slowed.push(new URL(request.url ?? '/', target).pathname);
        if (this.mode === 'trickle') {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.write('{');
          const timer = setInterval(() => response.write(' '), TRICKLE_EVERY_MS);
          this.#timers.add(timer);
          response.on('close', () => clearInterval(timer));
        }
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

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const timer of this.#timers) clearInterval(timer);
    for (const socket of this.#sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const db = useTestDatabase('slowexchange');
const budgetPrefix = randomPrefix('budget');
let sim: RunningSimulator;
let proxy: SlowProxy;
let runtime: Runtime;
let workers: RunningWorkers;

beforeAll(async () => {
  sim = await startSimulator({ scale: 'tiny' });
  proxy = new SlowProxy(sim.url);
  await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
  const config = loadConfig({
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    NODE_ENV: 'test',
    EXCHANGE_TIMEOUT_MS: String(IDLE_MS),
    EXCHANGE_DEADLINE_MS: String(DEADLINE_MS),
  });
  runtime = createRuntime(config, {
    prefix: randomPrefix('slowexchange').replaceAll(':', '-'),
    clientOverrides: {
      rateBudget: { prefix: budgetPrefix, perSecond: scaledBudgets(100) },
      retry: { maxAttempts: CLIENT_ATTEMPTS, baseDelayMs: 20, maxDelayMs: 200 },
    },
    jobOptions: { ingest: { attempts: QUEUE_ATTEMPTS, backoff: { type: 'fixed', delay: 200 } } },
  });
  await runtime.accounts.add({
    name: 'slow',
    baseUrl: proxy.url,
    ...sim.demo,
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
  await proxy?.close();
  await sim?.close();
});

async function windowRows(started: StartedBackfill) {
  const result = await runtime.pool.query<{ status: string; attempts: number; last_error: string | null }>(
    `SELECT status::text, attempts, last_error FROM sync_window WHERE id = ANY($1::uuid[]) ORDER BY window_start`,
    [started.windows.map((w) => w.id)],
  );
  return result.rows;
}

/** What the backfill's watch ended with, or, after `BOUND_MS`, the windows still open: a hang fails the test. */
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

async function backfillAgainst(mode: Mode, days: number) {
  proxy.mode = mode;
  // The backfill asks the exchange's clock first: that request goes through.
  proxy.passing = 1;
  const now = Date.now();
  const started = await startBackfill(runtime, { account: 'slow', stream: 'spot', from: now - days * DAY, to: now });
  const began = Date.now();
  const outcome = await outcomeOf(started);
  return { started, outcome, tookMs: Date.now() - began };
}

describe('an exchange that answers too slowly or never (EXCHANGE_DEADLINE_MS)', () => {
  it('fails a window whose answers trickle in a byte at a time with the deadline as its cause, within the retry budget', async () => {
    const { started, outcome, tookMs } = await backfillAgainst('trickle', 20);
    expect(outcome, JSON.stringify(outcome)).toBeInstanceOf(WindowsFailedError);
    expect(tookMs).toBeLessThan(BOUND_MS);
    for (const window of await windowRows(started)) {
      expect(window.status).toBe('failed');
      expect(window.last_error).toBe(
        `ExchangeNetworkError: spotRecord: HTTP 200 DEADLINE no complete answer within the ${DEADLINE_MS} ms deadline (EXCHANGE_DEADLINE_MS)`,
      );
      expect(window.attempts).toBeLessThanOrEqual(QUEUE_ATTEMPTS * (1 + CLIENT_ATTEMPTS));
    }
    // Each window asked no more often than the two retry policies allow.
    expect(proxy.slowed.length).toBeLessThanOrEqual(started.windows.length * QUEUE_ATTEMPTS * CLIENT_ATTEMPTS);
    const [spot] = (await streamStatuses(runtime.pool, started.windows[0]!.accountId)).filter(
      (s) => s.stream === 'spot',
    );
    expect(spot!.lastFailure?.error).toMatch(/DEADLINE/);
  }, 120_000);

  it('fails a window whose exchange takes the request and never answers with the timeout it met as its cause, within the retry budget', async () => {
    proxy.slowed.length = 0;
    const { started, outcome, tookMs } = await backfillAgainst('silent', 20);
    expect(outcome, JSON.stringify(outcome)).toBeInstanceOf(WindowsFailedError);
    expect(tookMs).toBeLessThan(BOUND_MS);
    for (const window of await windowRows(started)) {
      expect(window.status).toBe('failed');
      // The silence ends the request first (EXCHANGE_TIMEOUT_MS <= EXCHANGE_DEADLINE_MS), and the error says which setting.
      expect(window.last_error).toBe(
        `ExchangeNetworkError: spotRecord: NETWORK UND_ERR_HEADERS_TIMEOUT: no answer within ${IDLE_MS} ms (EXCHANGE_TIMEOUT_MS)`,
      );
      expect(window.attempts).toBeLessThanOrEqual(QUEUE_ATTEMPTS * (1 + CLIENT_ATTEMPTS));
    }
    expect(proxy.slowed.length).toBeLessThanOrEqual(started.windows.length * QUEUE_ATTEMPTS * CLIENT_ATTEMPTS);
  }, 120_000);
});
