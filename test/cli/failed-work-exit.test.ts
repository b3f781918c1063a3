import { describe, expect, it } from 'vitest';

import { runCliLive } from '../helpers/cli.ts';
import { usePipeline } from '../helpers/pipeline.ts';
import { TEST_REDIS_URL } from '../helpers/test-redis.ts';

const file = usePipeline('failedworkexit', { workers: false });

describe('exit code of work that failed', () => {
  it('a backfill whose windows fail exits 1 (work failed), not 2 (bad input)', async () => {
    const { sim, runtime } = file.pipeline;
    // An account the exchange knows as no broker, registered here as one: its transfer windows
    // are refused for good (permission), while the rest of the account answers.
    const credentials = sim.createAccount({ broker: false });
    await runtime.accounts.add({
      name: 'notbroker',
      baseUrl: sim.url,
      ...credentials,
      isBrokerParent: true,
      isUnifiedAccount: true,
    });
    const from = new Date(Date.now() - 20 * 24 * 3600_000).toISOString().slice(0, 10);
    const result = await runCliLive(
      ['backfill', '--account', 'notbroker', '--stream', 'transfers', '--from', from, '--with-worker'],
      { DATABASE_URL: file.db.url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: runtime.prefix },
    );
    expect(result.stdout).toMatch(/failed: transfers .*ExchangePermissionError/);
    // The progress view draws on stderr too; the error is its last line.
    expect(result.stderr.split('\n').at(-1)).toMatch(/^WindowsFailedError: \d+ window\(s\) failed/);
    expect(result.status).toBe(1);
  }, 90_000);
});
