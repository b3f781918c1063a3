import { describe, expect, it } from 'vitest';

import { createMetricsRegistry } from '../../src/app/observability/scrape-metrics.ts';
import type { RunSummary } from '../../src/app/services/list-runs.ts';
import { runCliLive } from '../helpers/cli.ts';
import { usePipeline } from '../helpers/pipeline.ts';
import { TEST_REDIS_URL } from '../helpers/test-redis.ts';

const DAY = 86_400_000;
// The CLI's runtime on the pipeline's queues and a budget scaled like its simulator (factor 50).
const file = usePipeline('cliruns', { workers: false });
const env = () => ({
  DATABASE_URL: file.db.url,
  REDIS_URL: TEST_REDIS_URL,
  QUEUE_PREFIX: file.pipeline.runtime.prefix,
  EXCHANGE_RATE_FACTOR: '50',
});

async function runs(): Promise<RunSummary[]> {
  const result = await runCliLive(['runs', '--json'], env());
  expect(result.status, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { runs: RunSummary[] }).runs;
}

async function lastSuccessMetric(): Promise<string | undefined> {
  const text = await createMetricsRegistry(file.pipeline.runtime).metrics();
  return text.split('\n').find((line) => line.startsWith('ledgerline_last_successful_sync_timestamp_seconds{'));
}

describe('every run is a run: the CLI records its syncs, backfills and reconciliations like the worker', () => {
  it('backfill, sync and reconcile each write a run; the last-success metric exists from the first success on', async () => {
    expect(await runs()).toEqual([]);
    expect(await lastSuccessMetric()).toBeUndefined();

    const from = new Date(Date.now() - 60 * DAY).toISOString().slice(0, 10);
    const backfill = await runCliLive(
      ['backfill', '--account', 'demo', '--stream', 'transfers', '--from', from, '--with-worker'],
      env(),
      120_000,
    );
    expect(backfill.status, backfill.stderr).toBe(0);
    const [first] = await runs();
    expect(first).toMatchObject({
      kind: 'sync',
      status: 'succeeded',
      account: 'demo',
      failedWindows: 0,
      detail: { by: 'ledgerline backfill' },
    });
    expect(first!.windows).toBeGreaterThan(0);
    const stored = await file.pipeline.runtime.pool.query<{ n: number }>(
      `SELECT coalesce(sum(rows), 0)::int AS n FROM sync_window WHERE stream = 'transfers'`,
    );
    expect(first!.rows).toBe(stored.rows[0]!.n);
    // The alert rule's metric: present, at the run's end, for the account synced by hand.
    const metric = await lastSuccessMetric();
    expect(metric).toMatch(/^ledgerline_last_successful_sync_timestamp_seconds\{account="demo"\} \d+/);
    expect(Number(metric!.split(' ')[1]) * 1000).toBeCloseTo(Date.parse(first!.finishedAt), -3);

    const sync = await runCliLive(
      ['sync', '--account', 'demo', '--stream', 'transfers', '--with-worker'],
      env(),
      120_000,
    );
    expect(sync.status, sync.stderr).toBe(0);
    const reconcile = await runCliLive(['reconcile', '--account', 'demo', '--recount', 'none'], env(), 120_000);
    expect([0, 1], reconcile.stderr).toContain(reconcile.status);

    const all = await runs();
    expect(all.map((r) => [r.kind, r.detail.by])).toEqual([
      ['reconciliation', 'ledgerline reconcile'],
      ['sync', 'ledgerline sync'],
      ['sync', 'ledgerline backfill'],
    ]);
    expect(all[0]!.status).toBe(reconcile.status === 0 ? 'succeeded' : 'failed');
    expect(all[0]!.checksPassed! + all[0]!.checksFailed!).toBeGreaterThan(0);
  }, 300_000);

  it('reconcile against an exchange that does not answer: exit 3 at once, one line naming it, a failed run', async () => {
    await file.pipeline.runtime.accounts.add({
      name: 'gone',
      baseUrl: 'http://127.0.0.1:1',
      apiKey: 'key',
      secretKey: 'secret',
      passphrase: 'passphrase',
      uid: '1',
      isBrokerParent: false,
      isUnifiedAccount: false,
    });
    const result = await runCliLive(['reconcile', '--account', 'gone'], env(), 120_000);
    expect(result.status).toBe(3);
    expect(result.stderr).toMatch(
      /^ServiceUnreachableError: the exchange at 127\.0\.0\.1:1 \(account gone's base URL\) is unreachable: .*ECONNREFUSED/,
    );
    expect(result.stderr.split('\n')).toHaveLength(1);
    const [failed] = await runs();
    expect(failed).toMatchObject({ kind: 'reconciliation', status: 'failed', account: 'gone' });
    expect(failed!.failures[0]).toMatch(/^ServiceUnreachableError: the exchange at 127\.0\.0\.1:1/);
  }, 120_000);
});
