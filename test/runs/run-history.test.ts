import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { JOB, QUEUE } from '../../jobs/definitions.ts';
import type { RunSummary } from '../../src/app/services/list-runs.ts';
import { runCli } from '../helpers/cli.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { TEST_REDIS_URL } from '../helpers/test-redis.ts';

const db = useTestDatabase('runhistory');
let pipeline: Pipeline;

beforeAll(async () => {
  pipeline = await startPipeline({ databaseUrl: db.url });
  pipeline.startWorkers();
});
afterAll(async () => {
  await pipeline?.close();
});

async function runsOf(kind: string, count: number): Promise<void> {
  for (let i = 0; ; i += 1) {
    const rows = await pipeline.runtime.pool.query('SELECT 1 FROM run WHERE kind = $1', [kind]);
    if ((rows.rowCount ?? 0) >= count) return;
    if (i > 600) throw new Error(`no ${kind} run recorded`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const env = () => ({ DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL });

describe('run history', () => {
  it('records the nightly sync and its reconciliation; runs --json lists them newest first with rows and checks', async () => {
    await pipeline.runtime.queues.get(QUEUE.sync).add(JOB.nightly, {}, { jobId: 'nightly.test' });
    await runsOf('sync', 1);
    await runsOf('reconciliation', 1);

    const result = runCli(['runs', '--json'], env());
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const { runs } = JSON.parse(result.stdout) as { runs: RunSummary[] };
    const sync = runs.find((r) => r.kind === 'sync')!;
    expect(sync).toMatchObject({
      status: 'succeeded',
      account: 'demo',
      accountId: pipeline.accountId,
      failedWindows: 0,
      // A first sync finds nothing changed since an earlier read.
      detail: { revised: 0 },
    });
    expect(sync.rows).toBeGreaterThan(0);
    expect(sync.windows).toBeGreaterThan(0);
    const stored = await pipeline.runtime.pool.query<{ n: number }>(
      'SELECT coalesce(sum(rows), 0)::int AS n FROM sync_window WHERE account_id = $1',
      [pipeline.accountId],
    );
    expect(sync.rows).toBe(stored.rows[0]!.n);
    const reconciliation = runs.find((r) => r.kind === 'reconciliation')!;
    expect(reconciliation.account).toBe('demo');
    expect(reconciliation.checksPassed! + reconciliation.checksFailed!).toBeGreaterThan(0);
    expect(reconciliation.detail.reportId).toEqual(expect.any(String));
    // Newest first.
    const times = runs.map((r) => r.finishedAt);
    expect([...times].sort().reverse()).toEqual(times);

    const human = runCli(['runs', '--account', 'demo', '--limit', '1'], env());
    expect(human.status).toBe(0);
    expect(human.stdout.trim().split('\n')[0]).toMatch(/ demo /);
  });

  it('records a job that failed after its retries, with its error as the failure', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    await pipeline.runtime.queues
      .get(QUEUE.reconcile)
      .add(JOB.reconcileAccount, { accountId: missing, recount: 'none' }, { jobId: 'reconcile.missing' });
    for (let i = 0; ; i += 1) {
      const rows = await pipeline.runtime.pool.query(`SELECT 1 FROM run WHERE account_id = $1`, [missing]);
      if (rows.rowCount) break;
      if (i > 300) throw new Error('failed reconciliation not recorded');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const { runs } = JSON.parse(runCli(['runs', '--json', '--limit', '1'], env()).stdout) as { runs: RunSummary[] };
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ kind: 'reconciliation', status: 'failed', accountId: missing, account: null });
    expect(runs[0]!.failures[0]).toMatch(/^reconcile-account: /);
  });

  it('bad input: one line naming the option, exit 2', () => {
    const limit = runCli(['runs', '--limit', '0'], env());
    expect(limit.stderr).toBe('ValidationError: --limit: must be a whole number from 1 to 1000 (got "0")');
    expect(limit.status).toBe(2);
    const account = runCli(['runs', '--account', 'nobody'], env());
    expect(account.stderr).toBe('ValidationError: --account: must name a registered account (got "nobody")');
    expect(account.status).toBe(2);
  });
});
