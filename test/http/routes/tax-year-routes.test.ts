import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createFilingWorker, type FilingWorker } from '../../../jobs/composition/workers.ts';
import { createRedisConnection } from '../../../src/app/redis-connection.ts';
import { loadConfig } from '../../../src/config/config.ts';
import { insertAccount, insertCoverage, insertSpot } from '../../export/seed.ts';
import { TEST_REDIS_URL } from '../../helpers/test-redis.ts';
import { signIn, TOKEN, useWebApp } from '../web-fixture.ts';

/**
 * The tax years page reads figures the worker computed per input version (src/export/filing):
 * here no filing worker runs until a test starts one, and a view waits for nothing (filingWaitMs
 * 0), so what a view says while the figures are computed is seen.
 */
const web = useWebApp('taxyearroutes', { filingWorker: false, filingWaitMs: 0 });
let cookie: string;
let accountId: string;
const connections: Redis[] = [];
let order = 0;

function trade(day: string, give: [string, string], get: [string, string]) {
  order += 1;
  const id = `t${order}`;
  const ts = `${day}T10:00:00.000Z`;
  return [
    { recordId: `${id}a`, coin: give[1], spotTaxType: 'Sell', amount: `-${give[0]}`, bizOrderId: id, ts },
    { recordId: `${id}b`, coin: get[1], spotTaxType: 'Sell', amount: get[0], bizOrderId: id, ts },
  ];
}

beforeAll(async () => {
  cookie = (await signIn(web.app, TOKEN)).cookie;
  accountId = await insertAccount(web.db.url, 'filing-routes');
  await insertSpot(web.db.url, accountId, [
    ...trade('2024-05-01', ['1000', 'GBP'], ['10', 'SOL']),
    ...trade('2024-06-03', ['4', 'SOL'], ['600', 'GBP']),
  ]);
  // Every stream read from before the first record to long after any day the test runs on.
  await insertCoverage(web.db.url, accountId, '2024-01-01T00:00:00Z', '2100-01-01T00:00:00Z');
});
afterAll(() => {
  for (const connection of connections) connection.disconnect();
});

const view = () => web.app.inject({ method: 'GET', url: `/tax-years/${accountId}`, headers: { cookie } });

/** A filing worker of the test's, as `ledgerline web` runs one (its walks in threads). */
function startWorker(): FilingWorker {
  const config = loadConfig({ DATABASE_URL: web.db.url, REDIS_URL: TEST_REDIS_URL, NODE_ENV: 'test' });
  return createFilingWorker({
    prefix: web.prefix,
    config,
    connection: () => {
      const connection = createRedisConnection(TEST_REDIS_URL);
      connections.push(connection);
      return connection;
    },
  });
}

/** Views until one shows current figures (no Refresh header): what a browser following the header sees. */
async function viewUntilCurrent() {
  for (let i = 0; i < 600; i++) {
    const answer = await view();
    if (answer.headers.refresh === undefined) return answer;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the figures never became current');
}

/**
 * The computations the worker finished: one job per account, method and input version (a view's
 * request joins the job of its version). Not filtered on the job's `skipped`: with a second suite
 * beside this one, a de job's last try reported no walk (a retry finds the figures its failed try
 * stored); it is still one job, one version's computation.
 */
async function walks() {
  const jobs = await web.filingQueue.getJobs(['completed'], 0, 100);
  return jobs.map((job) => job.data.method);
}

describe('the tax years page’s figures', () => {
  it('concurrent views share one computation per method, and say the figures are being calculated meanwhile', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => view()));
    for (const answer of answers) {
      expect(answer.statusCode).toBe(200);
      // The page reloads itself until the figures are there, and states none meanwhile.
      expect(answer.headers.refresh).toBeDefined();
      expect(answer.body).toContain('data-computing="uk"');
      expect(answer.body).toContain('data-computing="de"');
      expect(answer.body).toContain('Being calculated.');
      expect(answer.body).not.toContain('data-state="complete"');
      expect(answer.body).not.toContain('No records yet.');
    }
    // One job per account, method and input version, however many views asked.
    const queued = await web.filingQueue.getJobs(['waiting', 'prioritized', 'delayed'], 0, 100);
    expect(queued.map((job) => `${job.data.accountId} ${job.data.method}`).sort()).toEqual([
      `${accountId} de`,
      `${accountId} uk`,
    ]);

    const worker = startWorker();
    try {
      const current = await viewUntilCurrent();
      expect(current.body).not.toContain('data-computing');
      expect(current.body).toContain('data-state="complete"');
    } finally {
      // Closing waits for the jobs in hand: a job stores its figures before BullMQ marks it completed.
      await worker.close();
    }
    await expect.poll(async () => (await walks()).sort(), { timeout: 30_000 }).toEqual(['de', 'uk']);
  });

  it('never states figures of an older input version as current: a new record shows them as of their time, then the new ones', async () => {
    const before = await view();
    expect(before.headers.refresh).toBeUndefined();
    const completeYears = before.body.match(/data-state="complete"/g)?.length ?? 0;
    expect(completeYears).toBeGreaterThan(0);

    await insertSpot(web.db.url, accountId, trade('2024-07-04', ['6', 'SOL'], ['450', 'GBP']));
    const stale = await view();
    expect(stale.headers.refresh).toBeDefined();
    // The last figures are shown, each year marked out of date with their time, none called complete.
    expect(stale.body).toContain('Being recalculated: these figures are out of date.');
    expect(stale.body).toMatch(/They are the figures as of \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(stale.body).not.toContain('data-state="complete"');

    const worker = startWorker();
    try {
      const current = await viewUntilCurrent();
      expect(current.body).not.toContain('out of date');
      expect(current.body.match(/data-state="complete"/g)?.length ?? 0).toBe(completeYears);
    } finally {
      await worker.close();
    }
    // The new walks: one more per method, for the new version.
    await expect.poll(async () => (await walks()).sort(), { timeout: 30_000 }).toEqual(['de', 'de', 'uk', 'uk']);
  });
});
