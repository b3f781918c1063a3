import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createRuntime } from '../../jobs/composition/create-runtime.ts';
import { type RunningWorkers, startWorkers } from '../../jobs/composition/workers.ts';
import { QUEUE } from '../../jobs/definitions.ts';
import { ingestJobId, windowJobData } from '../../jobs/payloads/ingest-job.ts';
import type { Runtime } from '../../jobs/runtime.ts';
import { startBackfill } from '../../src/app/services/backfill.ts';
import { loadConfig } from '../../src/config/config.ts';
import { RateBudget } from '../../src/exchange/index.ts';
import { getWindow } from '../../src/ingest/coverage/window-store.ts';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { deleteKeys, randomPrefix, TEST_REDIS_URL } from '../helpers/test-redis.ts';

const DAY = 86_400_000;
const db = useTestDatabase('budgetwait');
const budgetPrefix = randomPrefix('budget');
let sim: RunningSimulator;
let runtime: Runtime;
let workers: RunningWorkers | undefined;

beforeAll(async () => {
  // The exchange's own limits (spot-record: 1 request per second per UID).
  sim = await startSimulator({ scale: 'tiny', rateLimits: { enabled: true } });
  const config = loadConfig({ DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, NODE_ENV: 'test', LOG_LEVEL: 'silent' });
  runtime = createRuntime(config, {
    prefix: randomPrefix('budgetwait').replaceAll(':', '-'),
    clientOverrides: { rateBudget: { prefix: budgetPrefix } },
  });
  const second = sim.createAccount({ broker: true, uta: true, withData: true });
  for (const [name, credentials] of [
    ['first', sim.demo],
    ['second', second],
  ] as const) {
    await runtime.accounts.add({
      name,
      baseUrl: sim.url,
      ...credentials,
      isBrokerParent: true,
      isUnifiedAccount: true,
    });
  }
});
afterAll(async () => {
  await workers?.close();
  await deleteKeys(runtime.redis, runtime.prefix, budgetPrefix);
  await runtime.close();
  await sim.close();
});

describe('an ingest job waiting for its rate budget', () => {
  it("gives its worker slot back: with one slot, a second account's window completes while the first account's budget is spent", async () => {
    // The first account's spot budget is spent for the next 150 s (as after a 429 on a busy UID): far
    // past the bound below, so a loaded machine's slowness is never mistaken for the slot being held.
    await new RateBudget(runtime.redis, { prefix: budgetPrefix }).pause(`spotRecord:uid:${sim.demo.uid}`, 150_000);
    workers = startWorkers(runtime, { concurrency: 1 });
    const now = Date.now();
    const range = { stream: 'spot' as const, from: now - 20 * DAY, to: now, now };
    const first = await startBackfill(runtime, { account: 'first', ...range });
    const second = await startBackfill(runtime, { account: 'second', ...range });
    expect(first.windows).toHaveLength(1);
    expect(second.windows).toHaveLength(1);

    const started = Date.now();
    for (;;) {
      const window = await getWindow(runtime.pool, second.windows[0]!.id);
      if (window?.status === 'done') break;
      if (Date.now() - started > 100_000) throw new Error(`second window not done: ${JSON.stringify(window)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Well before the first account's budget is back, and the first window is waiting as a delayed
    // job, not in a slot: the only slot ran the second account's window meanwhile.
    expect(Date.now() - started).toBeLessThan(100_000);
    expect((await getWindow(runtime.pool, first.windows[0]!.id))?.status).not.toBe('done');
    const firstJob = await runtime.queues.get(QUEUE.ingest).getJob(ingestJobId(windowJobData(first.windows[0]!)));
    expect(await firstJob?.getState()).toBe('delayed');
    expect(sim.counters.get()['/api/v2/tax/spot-record']?.rateLimited ?? 0).toBe(0);
  }, 180_000);
});
