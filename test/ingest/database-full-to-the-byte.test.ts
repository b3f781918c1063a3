import { describe, expect, it } from 'vitest';

import { QUEUE } from '../../jobs/definitions.ts';
import type { Alert, AlertSender } from '../../src/app/observability/alert-sender.ts';
import { watchStorageAlarm } from '../../src/app/observability/storage-alerts.ts';
import { startBackfill } from '../../src/app/services/backfill.ts';
import { StorageAlarm } from '../../src/ingest/coverage/storage-alarm.ts';
import { logger } from '../../src/logging/logger.ts';
import { runCliLive } from '../helpers/cli.ts';
import { fullDisk } from '../helpers/database-write-block.ts';
import { TEST_REDIS_URL } from '../helpers/test-redis.ts';
import { useWriteBlockRig } from '../helpers/write-block-rig.ts';

const DAY = 86_400_000;
const INIT_FILE_REFUSAL = /could not write init file: .*No space left on device, most likely/;

/**
 * A tablespace full to the byte (issue 43 item 4): once the relation-cache init file must be
 * written again, every new session fails with FATAL "could not write init file" (XX000), which
 * `status` called "Postgres unreachable". The worker, `status` and the alert must name the full
 * disk instead.
 */
describe('a database whose tablespace is full to the byte', () => {
  const way = fullDisk();
  const rig = useWriteBlockRig('fullbyte', way);
  const { url, prefix, runtimeNow } = rig;

  it('fails the windows naming the full disk, and status and the alert say DATABASE CANNOT WRITE, not unreachable', async () => {
    const planner = runtimeNow();
    await planner.accounts.add({
      name: 'main',
      baseUrl: rig.sim.url,
      ...rig.sim.demo,
      isBrokerParent: true,
      isUnifiedAccount: true,
    });
    const now = Date.now();
    const started = await startBackfill(planner, {
      account: 'main',
      stream: 'spot',
      from: now - 60 * DAY,
      to: now,
      now,
    });
    expect(started.enqueued).toBeGreaterThanOrEqual(2);
    await way.block();
    way.fillToTheByte();

    // A worker whose pool opens its sessions now: each is refused at its start.
    const stuck = runtimeNow();
    await rig.startWorkers(stuck);
    const queue = stuck.queues.get(QUEUE.ingest);
    const failedJobs = async () => (await queue.getJobs(['failed'])).filter((j) => j.name !== undefined);
    // Two tries each (the retry budget here): not the bound of a watch showing retry counts.
    for (const deadline = Date.now() + 90_000; (await failedJobs()).length < started.enqueued;) {
      if (Date.now() > deadline) throw new Error(`jobs not failed: ${JSON.stringify(await queue.getJobCounts())}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (const job of await failedJobs()) {
      expect(job.failedReason).toMatch(/^the database cannot write \(SQLSTATE XX000\): /);
      expect(job.failedReason).toMatch(INIT_FILE_REFUSAL);
    }

    // `status` opens a session too: it names the full disk in one line, exit 1 (not 3, unreachable).
    const status = await runCliLive(['status'], { DATABASE_URL: url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix });
    expect(status.stderr).toMatch(/^DATABASE CANNOT WRITE \(SQLSTATE XX000\): /);
    expect(status.stderr).toMatch(INIT_FILE_REFUSAL);
    expect(status.stderr.split('\n')).toHaveLength(1);
    expect(`${status.stdout}${status.stderr}`).not.toMatch(/unreachable/);
    expect(status.status).toBe(1);

    // The worker's alert: once per stretch, naming the refusal.
    const sent: Alert[] = [];
    const sender: AlertSender = { send: (alert) => void sent.push(alert), settled: async () => undefined };
    const watch = watchStorageAlarm({
      alarm: new StorageAlarm(stuck.redis, prefix),
      redis: stuck.redis,
      prefix,
      sender,
      log: logger('alerts'),
      checkEveryMs: 3_600_000,
    });
    try {
      await watch.check();
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({ event: 'database_cannot_write', code: 'XX000' });
      expect(sent[0]!.text).toMatch(/^ledgerline: DATABASE CANNOT WRITE since .*: windows fail until it can/);
      expect(sent[0]!.text).toMatch(INIT_FILE_REFUSAL);
      expect(await watch.check()).toEqual([]);
      expect(sent).toHaveLength(1);
      // Over (a window stored): the next stretch is alerted again.
      await new StorageAlarm(stuck.redis, prefix).clear();
      expect(await watch.check()).toEqual([]);
      await new StorageAlarm(stuck.redis, prefix).record(new Error('No space left on device'), 'w');
      expect(await watch.check()).toHaveLength(1);
    } finally {
      watch.close();
    }
  }, 240_000);
});
