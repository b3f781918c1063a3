import { describe, expect, it } from 'vitest';

import { runCliLive } from '../helpers/cli.ts';
import { usePipeline } from '../helpers/pipeline.ts';
import { freshDatabaseUrl } from '../helpers/test-database.ts';
import { TEST_REDIS_URL } from '../helpers/test-redis.ts';

// A live simulator with its account registered, on the file's own database.
const file = usePipeline('doctor', { workers: false });
const env = (overrides: Record<string, string> = {}) => ({
  DATABASE_URL: file.db.url,
  REDIS_URL: TEST_REDIS_URL,
  QUEUE_PREFIX: file.pipeline.runtime.prefix,
  ...overrides,
});

interface Check {
  check: string;
  status: string;
  detail: string;
}

async function doctor(overrides: Record<string, string> = {}) {
  const result = await runCliLive(['doctor', '--json'], env(overrides), 120_000);
  const parsed = JSON.parse(result.stdout) as { ok: boolean; checks: Check[] };
  const byName = Object.fromEntries(parsed.checks.map((c) => [c.check, c]));
  return { ...result, ...parsed, byName };
}

describe('ledgerline doctor: everything ledgerline needs, in one table', () => {
  it('all well: every store, the migrations and the account answer; exit 0; the human table has a line per check', async () => {
    const result = await doctor();
    expect(result.status, result.stderr).toBe(0);
    expect(result.ok).toBe(true);
    expect(result.checks.map((c) => c.check)).toEqual([
      'postgres',
      'migrations',
      'redis',
      'master key',
      'account demo',
      'chromium (tests)',
      'bean-check (tests)',
    ]);
    expect(result.byName['account demo']).toMatchObject({ status: 'ok' });
    expect(result.byName.migrations).toMatchObject({ status: 'ok' });
    // The tests' development key is said, never failed.
    expect(result.byName['master key']).toMatchObject({ status: 'warn' });

    const human = await runCliLive(['doctor'], env(), 120_000);
    expect(human.status).toBe(0);
    expect(human.stdout.split('\n')[0]).toMatch(/^CHECK\s+STATUS\s+DETAIL$/);
    expect(human.stdout).toMatch(
      /^account demo\s+OK\s+http:\/\/127\.0\.0\.1:\d+ answers and accepts its credentials$/m,
    );
  }, 300_000);

  it('an account whose credentials the exchange refuses: that line fails, naming the fix; exit 1', async () => {
    const { sim, runtime } = file.pipeline;
    await runtime.accounts.add({
      name: 'wrongpass',
      baseUrl: sim.url,
      apiKey: sim.demo.apiKey,
      secretKey: sim.demo.secretKey,
      passphrase: 'not-the-passphrase',
      uid: sim.demo.uid,
      isBrokerParent: true,
      isUnifiedAccount: true,
    });
    const result = await doctor();
    expect(result.status, result.stderr).toBe(1);
    expect(result.byName['account wrongpass']!.status).toBe('fail');
    expect(result.byName['account wrongpass']!.detail).toMatch(
      /refuses its credentials .*: ledgerline accounts update$/,
    );
    expect(result.byName['account demo']!.status).toBe('ok');
    await runtime.accounts.setDisabled('wrongpass', true);
  }, 300_000);

  it('Redis down and the database missing: both named with their fix, the accounts skipped; exit 3', async () => {
    const result = await doctor({ DATABASE_URL: freshDatabaseUrl('doctormissing'), REDIS_URL: 'redis://127.0.0.1:1' });
    expect(result.status, result.stderr).toBe(3);
    expect(result.byName.postgres!.status).toBe('ok');
    expect(result.byName.migrations!.detail).toMatch(/does not exist: run `ledgerline migrate`$/);
    expect(result.byName.redis!.detail).toMatch(/; start Redis at 127\.0\.0\.1:1 or set REDIS_URL to one that runs$/);
    expect(result.byName.accounts).toMatchObject({ status: 'skipped' });
  }, 300_000);
});
