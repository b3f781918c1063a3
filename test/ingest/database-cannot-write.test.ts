import { beforeAll, describe, expect, it } from 'vitest';

import { QUEUE } from '../../jobs/definitions.ts';
import type { Runtime } from '../../jobs/runtime.ts';
import { createMetricsRegistry } from '../../src/app/observability/scrape-metrics.ts';
import { startBackfill } from '../../src/app/services/backfill.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { runCliLive } from '../helpers/cli.ts';
import { fullDisk, readOnlyDatabase } from '../helpers/database-write-block.ts';
import { TEST_REDIS_URL } from '../helpers/test-redis.ts';
import { useWriteBlockRig } from '../helpers/write-block-rig.ts';

const DAY = 86_400_000;

/**
 * Each way a database comes to refuse writes: made read-only, and a real full disk (a tablespace on
 * a tmpfs shrunk to what it holds). The same backfill meets each; it must fail its windows with the
 * cause, say so without writing, and lose nothing once the database writes again.
 */
describe.each([readOnlyDatabase(), fullDisk()])('a database that cannot write: $name', (way) => {
  const rig = useWriteBlockRig('cannotwrite', way);
  const { url, prefix, runtimeNow } = rig;
  let planner: Runtime;

  beforeAll(async () => {
    planner = runtimeNow();
    await planner.accounts.add({
      name: 'main',
      baseUrl: rig.sim.url,
      ...rig.sim.demo,
      isBrokerParent: true,
      isUnifiedAccount: true,
    });
  });

  it('fails the windows’ jobs with the cause, shows it in status and the metrics without writing, and loses nothing once it writes again', async () => {
    const now = Date.now();
    // Planned and enqueued while the database writes; no worker yet.
    const started = await startBackfill(planner, {
      account: 'main',
      stream: 'spot',
      from: now - 60 * DAY,
      to: now,
      now,
    });
    expect(started.enqueued).toBeGreaterThanOrEqual(2);
    await way.block();

    const stuck = runtimeNow();
    const workers = await rig.startWorkers(stuck);
    const queue = stuck.queues.get(QUEUE.ingest);
    const failedJobs = async () => (await queue.getJobs(['failed'])).filter((j) => j.name !== undefined);
    for (const deadline = Date.now() + 60_000; (await failedJobs()).length < started.enqueued;) {
      if (Date.now() > deadline) throw new Error(`jobs not failed: ${JSON.stringify(await queue.getJobCounts())}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // The job carries the cause (its window row could not take it).
    for (const job of await failedJobs()) {
      expect(job.failedReason).toMatch(new RegExp(`^the database cannot write \\(SQLSTATE ${way.code}\\): `));
      expect(job.failedReason).toMatch(way.refusal);
    }
    // The process's metric, which needs no database write.
    const metrics = await createMetricsRegistry(stuck).metrics();
    expect(metrics).toMatch(new RegExp(`ledgerline_database_write_failures_total\\{code="${way.code}"\\} [1-9]`));
    // `ledgerline status` says so (read-only is no obstacle to reading) and exits 1.
    const env = { DATABASE_URL: url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix };
    const status = await runCliLive(['status'], env);
    expect(status.stdout).toMatch(
      new RegExp(`DATABASE CANNOT WRITE, last refused at .*: windows fail until it can \\(SQLSTATE ${way.code}: `),
    );
    expect(status.status).toBe(1);
    await workers.close();

    // Writable again: the same backfill finishes every window, and every record is stored once.
    await way.unblock();
    const back = runtimeNow();
    await rig.startWorkers(back);
    const again = await startBackfill(back, { account: 'main', stream: 'spot', from: now - 60 * DAY, to: now, now });
    expect(again.enqueued).toBe(started.enqueued);
    for (const deadline = Date.now() + 60_000; ;) {
      const progress = await windowProgress(
        back.pool,
        again.windows.map((w) => w.id),
      );
      if (progress.every((p) => p.done === p.total)) break;
      if (Date.now() > deadline) throw new Error(`backfill not finished: ${JSON.stringify(progress)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const start = Math.min(...again.windows.map((w) => w.start));
    const end = Math.max(...again.windows.map((w) => w.end));
    const expected = rig.sim.truth('spot').filter((r) => Number(r.ts) >= start && Number(r.ts) < end).length;
    expect(expected).toBeGreaterThan(0);
    const stored = await back.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM spot_record`);
    expect(stored.rows[0]!.n).toBe(expected);
    const cleared = await runCliLive(['status'], env);
    expect(cleared.stdout).not.toMatch(/DATABASE CANNOT WRITE/);
  }, 180_000);
});
