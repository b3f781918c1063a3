import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';

import { SYNC_SERVICES } from '../../jobs/composition/workers.ts';
import { JOB } from '../../jobs/definitions.ts';
import { createSyncProcessor } from '../../jobs/sync/sync-processor.ts';
import { startBackfill, type StartedBackfill } from '../../src/app/services/backfill.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { logger } from '../../src/logging/logger.ts';
import { runCliLive } from '../helpers/cli.ts';
import { usePipeline } from '../helpers/pipeline.ts';
import { TEST_REDIS_URL } from '../helpers/test-redis.ts';

const DAY = 86_400_000;
const file = usePipeline('acctlife', { workers: false });

const env = (extra: Record<string, string> = {}) => ({
  DATABASE_URL: file.db.url,
  REDIS_URL: TEST_REDIS_URL,
  QUEUE_PREFIX: file.pipeline.runtime.prefix,
  ...extra,
});

/** Waits until every window of the backfill is done or failed; returns the counts. */
async function settled(started: StartedBackfill): Promise<{ done: number; failed: number; total: number }> {
  const ids = started.windows.map((w) => w.id);
  for (;;) {
    const progress = await windowProgress(file.pipeline.runtime.pool, ids);
    const sum = (key: 'done' | 'failed' | 'total') => progress.reduce((n, p) => n + p[key], 0);
    if (sum('done') + sum('failed') === sum('total'))
      return { done: sum('done'), failed: sum('failed'), total: sum('total') };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function listed(): Promise<{ name: string; disabled: boolean; apiKey: string }[]> {
  const result = await runCliLive(['accounts', 'list', '--json'], env());
  expect(result.status).toBe(0);
  return (JSON.parse(result.stdout) as { accounts: { name: string; disabled: boolean; apiKey: string }[] }).accounts;
}

describe('account lifecycle', () => {
  it('accounts add refuses a wrong secret after one signed read (exit 2, nothing stored) and stores a right one', async () => {
    const { sim } = file.pipeline;
    const credentials = sim.createAccount({ broker: false });
    const add = (name: string, secret: string) =>
      runCliLive(
        [
          'accounts',
          'add',
          '--name',
          name,
          '--base-url',
          sim.url,
          '--api-key',
          credentials.apiKey,
          '--uid',
          credentials.uid,
        ],
        env({ LEDGERLINE_ACCOUNT_SECRET: secret, LEDGERLINE_ACCOUNT_PASSPHRASE: credentials.passphrase }),
      );

    const refused = await add('wrongsecret', `${credentials.secretKey}x`);
    expect(refused.stderr.split('\n').at(-1)).toMatch(
      /^CredentialsRefusedError: the exchange refused these credentials/,
    );
    expect(refused.stderr).not.toContain(credentials.secretKey);
    expect(refused.status).toBe(2);
    expect((await listed()).map((a) => a.name)).not.toContain('wrongsecret');

    const added = await add('rightsecret', credentials.secretKey);
    expect(added.stderr).toBe('');
    expect(added.stdout).toMatch(/^registered account rightsecret/);
    expect(added.status).toBe(0);
  }, 60_000);

  it('accounts update rotates the secret and the next sync of a running worker signs with the new one', async () => {
    const { sim, runtime } = file.pipeline;
    const credentials = sim.createAccount({ broker: false });
    // The exchange's secret changed (rotated there); the stored one is the old, now wrong, one.
    const stale = await runCliLive(
      [
        'accounts',
        'add',
        '--no-verify',
        '--name',
        'rotated',
        '--base-url',
        sim.url,
        '--api-key',
        credentials.apiKey,
        '--uid',
        credentials.uid,
      ],
      env({ LEDGERLINE_ACCOUNT_SECRET: 'old-secret', LEDGERLINE_ACCOUNT_PASSPHRASE: credentials.passphrase }),
    );
    expect(stale.status).toBe(0);

    const workers = file.pipeline.startWorkers();
    try {
      const now = sim.clock.now();
      const request = { account: 'rotated', stream: 'spot' as const, from: now - 3 * DAY, to: now, now };
      const before = await settled(await startBackfill(runtime, request));
      expect(before.failed).toBe(before.total);

      // A wrong new secret is refused by update too, and the stored one stays.
      const wrong = await runCliLive(
        ['accounts', 'update', 'rotated', '--secret-key'],
        env({ LEDGERLINE_ACCOUNT_SECRET: 'another-wrong-secret' }),
      );
      expect(wrong.stderr).toMatch(/CredentialsRefusedError/);
      expect(wrong.status).toBe(2);

      const rotated = await runCliLive(
        ['accounts', 'update', 'rotated', '--secret-key'],
        env({ LEDGERLINE_ACCOUNT_SECRET: credentials.secretKey }),
      );
      expect(rotated.stdout).toMatch(/^updated account rotated: secretKey/);
      expect(rotated.status).toBe(0);

      // The same worker process, whose client for this account was built with the old secret.
      const after = await settled(await startBackfill(runtime, request));
      expect(after).toEqual({ done: after.total, failed: 0, total: after.total });
    } finally {
      await workers.close();
    }
  }, 90_000);

  it('a disabled account is listed as disabled and left out of the nightly run until enabled again', async () => {
    const { runtime } = file.pipeline;
    const disabled = await runCliLive(['accounts', 'disable', 'rotated'], env());
    expect(disabled.stdout).toMatch(/^account rotated: disabled since /);
    expect(disabled.status).toBe(0);
    expect((await listed()).find((a) => a.name === 'rotated')?.disabled).toBe(true);
    const table = await runCliLive(['accounts', 'list'], env());
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+UID\s+BASE URL\s+API KEY\s+BROKER\s+UTA\s+STATE$/);
    expect(table.stdout).toMatch(/^rotated\s.*\sdisabled$/m);

    // The nightly job's fan-out, run directly (no worker here would take the jobs it adds).
    const nightly = createSyncProcessor(runtime, logger('test'), SYNC_SERVICES);
    const job = (id: number) =>
      ({ name: JOB.nightly, id: `n${id}`, opts: {}, timestamp: id, data: {} }) as unknown as Job;
    const all = (await listed()).length;
    expect(await nightly(job(1))).toEqual({ accounts: all - 1 });

    expect((await runCliLive(['accounts', 'enable', 'rotated'], env())).stdout).toMatch(/^account rotated: enabled$/m);
    expect(await nightly(job(2))).toEqual({ accounts: all });
  }, 60_000);
});
