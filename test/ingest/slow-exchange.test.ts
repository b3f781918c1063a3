import type http from 'node:http';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Runtime } from '../../jobs/runtime.ts';
import { startBackfill } from '../../src/app/services/backfill.ts';
import { WindowsFailedError } from '../../src/cli/watch-windows.ts';
import { streamStatuses } from '../../src/ingest/coverage/stream-status.ts';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.ts';
import { backfillOutcome, windowRows } from '../helpers/backfill-outcome.ts';
import { FaultyProxy } from '../helpers/faulty-proxy.ts';
import { createFewRetriesRuntime, type FewRetriesRuntime } from '../helpers/few-retries-runtime.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

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
 * The retry policies' worst case for one window with these settings (the failure budget, 180 s by
 * default, does not run out first; test/ingest/failure-budget.test.ts): every try spends each of its
 * attempts on a whole deadline, plus the backoffs (at most 200 ms between attempts, 200 ms between
 * tries), plus slack for a loaded machine (a second suite beside this one): 60 s, still far inside
 * the failure budget, so retries past the policies' count would fail the check. Several windows run
 * side by side.
 */
const BOUND_MS = QUEUE_ATTEMPTS * CLIENT_ATTEMPTS * DEADLINE_MS + QUEUE_ATTEMPTS * (CLIENT_ATTEMPTS + 1) * 200 + 60_000;

type Mode = 'trickle' | 'silent';
let mode: Mode = 'silent';

/**
 * The exchange's address, in front of the simulator: it forwards the first `passing` requests
 * (the backfill's clock probe), then answers spot requests slowly: `trickle` sends the headers and
 * then one byte of a never-ending body every 250 ms; `silent` takes the request and never answers.
 */
function slowly(_request: http.IncomingMessage, response: http.ServerResponse): void {
  if (mode !== 'trickle') return;
  response.writeHead(200, { 'content-type': 'application/json' });
  response.write('{');
  const timer = setInterval(() => response.write(' '), TRICKLE_EVERY_MS);
  response.on('close', () => clearInterval(timer));
}

const db = useTestDatabase('slowexchange');
let sim: RunningSimulator;
let proxy: FaultyProxy;
let fewRetries: FewRetriesRuntime;
let runtime: Runtime;

beforeAll(async () => {
  sim = await startSimulator({ scale: 'tiny' });
  proxy = new FaultyProxy(sim.url, slowly);
  await proxy.listen();
  fewRetries = createFewRetriesRuntime({
    databaseUrl: db.url,
    label: 'slowexchange',
    rateFactor: 100,
    clientAttempts: CLIENT_ATTEMPTS,
    queueAttempts: QUEUE_ATTEMPTS,
    env: { EXCHANGE_TIMEOUT_MS: String(IDLE_MS), EXCHANGE_DEADLINE_MS: String(DEADLINE_MS) },
  });
  ({ runtime } = fewRetries);
  await runtime.accounts.add({
    name: 'slow',
    baseUrl: proxy.url,
    ...sim.demo,
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

async function backfillAgainst(answering: Mode, days: number) {
  mode = answering;
  // The backfill asks the exchange's clock first: that request goes through.
  proxy.passing = 1;
  const now = Date.now();
  const started = await startBackfill(runtime, { account: 'slow', stream: 'spot', from: now - days * DAY, to: now });
  const began = Date.now();
  const outcome = await backfillOutcome(runtime, started, BOUND_MS);
  return { started, outcome, tookMs: Date.now() - began };
}

describe('an exchange that answers too slowly or never (EXCHANGE_DEADLINE_MS)', () => {
  it('fails a window whose answers trickle in a byte at a time with the deadline as its cause, within the retry budget', async () => {
    const { started, outcome, tookMs } = await backfillAgainst('trickle', 20);
    expect(outcome, JSON.stringify(outcome)).toBeInstanceOf(WindowsFailedError);
    expect(tookMs).toBeLessThan(BOUND_MS);
    for (const window of await windowRows(runtime, started)) {
      expect(window.status).toBe('failed');
      expect(window.last_error).toBe(
        `ExchangeNetworkError: spotRecord: HTTP 200 DEADLINE no complete answer within the ${DEADLINE_MS} ms deadline (EXCHANGE_DEADLINE_MS)`,
      );
      expect(window.attempts).toBeLessThanOrEqual(QUEUE_ATTEMPTS * (1 + CLIENT_ATTEMPTS));
    }
    // Each window asked no more often than the two retry policies allow.
    expect(proxy.faulted.length).toBeLessThanOrEqual(started.windows.length * QUEUE_ATTEMPTS * CLIENT_ATTEMPTS);
    const [spot] = (await streamStatuses(runtime.pool, started.windows[0]!.accountId)).filter(
      (s) => s.stream === 'spot',
    );
    expect(spot!.lastFailure?.error).toMatch(/DEADLINE/);
  }, 120_000);

  it('fails a window whose exchange takes the request and never answers with the timeout it met as its cause, within the retry budget', async () => {
    proxy.faulted.length = 0;
    const { started, outcome, tookMs } = await backfillAgainst('silent', 20);
    expect(outcome, JSON.stringify(outcome)).toBeInstanceOf(WindowsFailedError);
    expect(tookMs).toBeLessThan(BOUND_MS);
    for (const window of await windowRows(runtime, started)) {
      expect(window.status).toBe('failed');
      // The silence ends the request first (EXCHANGE_TIMEOUT_MS <= EXCHANGE_DEADLINE_MS), and the error says which setting.
      expect(window.last_error).toBe(
        `ExchangeNetworkError: spotRecord: NETWORK UND_ERR_HEADERS_TIMEOUT: no answer within ${IDLE_MS} ms (EXCHANGE_TIMEOUT_MS)`,
      );
      expect(window.attempts).toBeLessThanOrEqual(QUEUE_ATTEMPTS * (1 + CLIENT_ATTEMPTS));
    }
    expect(proxy.faulted.length).toBeLessThanOrEqual(started.windows.length * QUEUE_ATTEMPTS * CLIENT_ATTEMPTS);
  }, 120_000);
});
