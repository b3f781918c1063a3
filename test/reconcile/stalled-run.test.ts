import type { ChildProcess } from 'node:child_process';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { QUEUE } from '../../jobs/definitions.ts';
import { enqueueReconciliation } from '../../jobs/reconcile/enqueue-reconciliation.ts';
import type { Runtime } from '../../jobs/runtime.ts';
import { type BackfilledAccount, spendSpotBudget, startBackfilledAccount } from '../helpers/backfilled-account.ts';
import { killSpawned, logged, spawnCli } from '../helpers/cli.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { deleteKeys, TEST_REDIS_URL } from '../helpers/test-redis.ts';

/**
 * The workers' claim on a reconciliation (RECONCILE_CLAIM_TTL_MS), shorter than the 30 s default so
 * that the test waits seconds, not half a minute, for the frozen worker's claim to expire.
 */
const CLAIM_TTL_MS = 5_000;
/** How long the first worker is frozen: 10 s past its claim's expiry, as in issue 34 (40 s for a 30 s claim). */
const STOPPED_MS = CLAIM_TTL_MS + 10_000;
const db = useTestDatabase('stalledrun');
let account: BackfilledAccount;
let runtime: Runtime;
let accountId: string;

beforeAll(async () => {
  // Some history to reconcile, read by an in-process worker that is closed before the test.
  account = await startBackfilledAccount({ databaseUrl: db.url, redisUrl: TEST_REDIS_URL, label: 'stalledrun' });
  ({ runtime, accountId } = account);
  await account.workers.close();
}, 90_000);
afterAll(async () => {
  await killSpawned();
  await deleteKeys(runtime.redis, runtime.prefix);
  await runtime.close();
  await account?.sim.close();
});

function collect(child: ChildProcess): () => string {
  let text = '';
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return () => text;
}

async function until(what: string, ms: number, check: () => Promise<boolean> | boolean): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline;) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  void what;
  return false;
}

describe('a worker frozen mid-reconciliation past its claim (SIGSTOP, then SIGCONT)', () => {
  it('yields exactly one report and one run row: the frozen run, taken over meanwhile, writes nothing when it wakes', async () => {
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: runtime.prefix,
      LOG_LEVEL: 'info',
      WORKER_CONCURRENCY: '2',
      RECONCILE_CLAIM_TTL_MS: String(CLAIM_TTL_MS),
    };
    const first = spawnCli(['worker'], env);
    const firstLog = collect(first);
    await logged(first, 'worker started', 60_000);
    // The run waits for its spot budget a few seconds, so its job leaves the slot (delayed) first.
    await spendSpotBudget(account, 4_000);
    const job = await enqueueReconciliation(runtime, accountId, { recount: 'all' });
    await logged(first, 'reconciliation started', 30_000);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    first.kill('SIGSTOP');
    const stoppedAt = Date.now();

    // A second worker takes the job over once the frozen one's claim has expired.
    const second = spawnCli(['worker'], env);
    const secondLog = collect(second);
    const queue = runtime.queues.get(QUEUE.reconcile);
    const completed = await until('the job completes', STOPPED_MS + 30_000, async () => {
      return (await queue.getJob(job.id!))?.finishedOn !== undefined;
    });
    expect(completed, secondLog()).toBe(true);
    const waitLeft = STOPPED_MS - (Date.now() - stoppedAt);
    if (waitLeft > 0) await new Promise((resolve) => setTimeout(resolve, waitLeft));
    first.kill('SIGCONT');

    // The frozen run goes on where it stopped, and then finds its fence moved: it writes nothing.
    const reports = () => db.prisma.reconciliationReport.count({ where: { accountId } });
    const superseded = await until('the frozen run ends', 30_000, async () => {
      return firstLog().includes('lost its claim') || (await reports()) > 1;
    });
    // Time for anything a late run would still write (a run row, a Redis key).
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await reports()).toBe(1);
    expect(await db.prisma.run.count({ where: { kind: 'reconciliation' } })).toBe(1);
    const finished = await queue.getJob(job.id!);
    const [report] = await db.prisma.reconciliationReport.findMany({ where: { accountId } });
    expect(finished!.returnvalue).toMatchObject({ reportId: report!.id });
    const [run] = await db.prisma.run.findMany({ where: { kind: 'reconciliation' } });
    expect(run!.detail).toEqual({ reportId: report!.id });
    expect(superseded).toBe(true);
    // No outcome waits in Redis for a job that has already completed, and no claim is left.
    expect(await runtime.redis.keys(`${runtime.prefix}:reconcile-run:*`)).toEqual([]);
  }, 240_000);
});
