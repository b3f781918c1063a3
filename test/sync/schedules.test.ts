import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createRuntime } from '../../jobs/composition/create-runtime.ts';
import { upsertSchedules } from '../../jobs/composition/schedules.ts';
import { QUEUE } from '../../jobs/definitions.ts';
import { STREAMS } from '../../src/streams/registry.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const db = useTestDatabase('schedules');
let pipeline: Pipeline;

beforeAll(async () => {
  pipeline = await startPipeline({
    databaseUrl: db.url,
    // Seconds-level crons, so a scheduled run happens inside the test.
    env: { NIGHTLY_CRON: '*/2 * * * * *', MARKET_DATA_CRON: '*/2 * * * * *', OI_LIMIT_CRON: '*/2 * * * * *' },
  });
});
afterAll(async () => {
  await pipeline?.close();
});

async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 60_000,
  pollMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

describe('schedules', () => {
  it('registers each scheduler once however many workers start, and a scheduled run syncs and reconciles', async () => {
    const { runtime } = pipeline;
    // A second process's runtime on the same Redis prefix, starting up at the same time.
    const other = createRuntime(runtime.config, { prefix: runtime.prefix });
    try {
      await Promise.all([upsertSchedules(runtime), upsertSchedules(other)]);
      await upsertSchedules(runtime);
    } finally {
      await other.close();
    }
    const sync = new Queue(QUEUE.sync, { prefix: runtime.prefix, connection: runtime.redis });
    const market = new Queue(QUEUE.marketData, { prefix: runtime.prefix, connection: runtime.redis });
    try {
      expect((await sync.getJobSchedulers()).map((s) => s.key)).toEqual(['nightly-sync']);
      expect((await market.getJobSchedulers()).map((s) => s.key).sort()).toEqual(['net-flow-poll', 'oi-limit-poll']);

      pipeline.startWorkers();
      // One scheduled night is the test: the next (every 2 s here) would plan the same windows again
      // while the first is read and reconciled.
      await until(
        async () => (await sync.getJobs(['completed', 'active'])).some((j) => j.name === 'nightly'),
        (fired) => fired,
        60_000,
        50,
      );
      await sync.removeJobScheduler('nightly-sync');
      // The scheduled nightly job fans out to the account, plans its windows, and every window gets read.
      const windows = await until(
        () => db.prisma.syncWindow.findMany({ where: { accountId: pipeline.accountId } }),
        (rows) => rows.length > 0 && rows.every((w) => w.status === 'done'),
      );
      expect(new Set(windows.map((w) => w.stream))).toEqual(
        // Every stream of the registry, as the sync_stream enum stores it (futures-ledger: futures_ledger).
        new Set(STREAMS.map((stream) => stream.replace(/-/g, '_'))),
      );
      expect(await db.prisma.spotRecord.count()).toBeGreaterThan(0);
      // The sync-finish job ran after its windows (children) were done.
      await until(
        async () => (await sync.getJobs(['completed'])).filter((j) => j.name === 'sync-finish').length,
        (n) => n > 0,
      );
      // ... which wrote the prices implied by the synced trades (after-sync.ts) ...
      expect(
        await db.prisma.price.count({ where: { accountId: pipeline.accountId, source: 'trade' } }),
      ).toBeGreaterThan(0);
      // ... and reconciliation followed the sync and wrote its report, which passes.
      const reports = await until(
        () => db.prisma.reconciliationReport.findMany({ where: { accountId: pipeline.accountId } }),
        (rows) => rows.length > 0,
      );
      const failed = (reports[0]!.checks as { name: string; passed: boolean; failures: string[] }[]).filter(
        (c) => !c.passed,
      );
      expect(failed).toEqual([]);
      expect(reports[0]!.passed).toBe(true);
      // Market data polls stored their series.
      await until(
        () => db.prisma.netFlowPoint.count(),
        (n) => n >= 24,
      );
      await until(
        () => db.prisma.openInterestLimitSnapshot.count(),
        (n) => n >= 2,
      );
    } finally {
      await sync.close();
      await market.close();
    }
  }, 90_000);
});
