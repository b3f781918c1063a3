import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';

import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { JOB, QUEUE } from '../../jobs/definitions.ts';
import { reconcileJobId } from '../../jobs/payloads/reconcile-job.ts';
import { enqueueReconciliation } from '../../jobs/reconcile/enqueue-reconciliation.ts';
import { createRootLogger, setRootLogger } from '../../src/logging/logger.ts';
import { STREAM_TITLES, WALLET_LEDGERS } from '../../src/streams/registry.ts';
import { killSpawned, runCli, runCliLive } from '../helpers/cli.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { TEST_REDIS_URL } from '../helpers/test-redis.ts';
import { backfill, DAY, setAside } from './support.ts';

// The five checks every account has, then one per wallet ledger of the registry (margin, P2P).
const CHECKS = 5 + WALLET_LEDGERS.length;

const db = useTestDatabase('reconcilecli');
const NOW = Date.now();
const logLines: string[] = [];
let pipeline: Pipeline;
let env: Record<string, string>;

beforeAll(async () => {
  setRootLogger(
    createRootLogger({
      level: 'info',
      destination: new Writable({
        write(chunk: Buffer, _encoding, done) {
          logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
          done();
        },
      }),
    }),
  );
  pipeline = await startPipeline({ databaseUrl: db.url, simulator: { now: NOW } });
  env = {
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: `lltest-reconcilecli-${randomBytes(4).toString('hex')}`,
    EXCHANGE_RATE_FACTOR: '50',
  };
  const workers = pipeline.startWorkers();
  await backfill(pipeline, { from: NOW - 120 * DAY, to: NOW, now: NOW });
  await workers.close();
}, 120_000);
afterAll(async () => {
  await killSpawned();
  const keys = await pipeline.runtime.redis.keys(`${env.QUEUE_PREFIX}:*`);
  if (keys.length > 0) await pipeline.runtime.redis.del(...keys);
  await pipeline?.close();
});

/** The CLI run without blocking this process, which serves the simulator it re-counts against. */
const cliLive = (args: string[]) => runCliLive(args, env);

describe('ledgerline reconcile', () => {
  it('prints one PASS line per check and exits 0 when everything holds', async () => {
    const result = await cliLive(['reconcile', '--account', 'demo', '--recount', 'all']);
    // Progress on stderr, one line per check (no terminal here), the report on stdout.
    const progress = result.stderr.split('\n');
    expect(progress).toHaveLength(CHECKS);
    // The checks run side by side: the last line is whichever ends last.
    expect(progress[CHECKS - 1]).toMatch(
      new RegExp(`^reconcile: check ${CHECKS}/${CHECKS} [a-z-]+ passed \\(\\d+\\.\\d s\\)$`),
    );
    expect(result.stdout).toMatch(
      new RegExp(`^Reconciliation of account demo at .+ \\(recount: all, .+\\): PASSED, all ${CHECKS} checks$`, 'm'),
    );
    for (const title of [
      'coverage',
      'spot balance continuity',
      'paging stuck',
      'window counts',
      'futures ledger',
      ...WALLET_LEDGERS.map((stream) => STREAM_TITLES[stream].toLowerCase()),
    ]) {
      expect(result.stdout).toMatch(new RegExp(`^PASS {2}${title} `, 'm'));
    }
    const windows = await pipeline.runtime.pool.query(`SELECT count(*)::int AS n FROM sync_window`);
    const n = windows.rows[0].n as number;
    // Windows read after the run's fresh-read horizon are re-counted from their own reads and say how many.
    expect(result.stdout).toMatch(
      new RegExp(
        `^PASS {2}window counts +${n} of ${n} windows re-counted(, \\d+ of them from their own fresh reads)?$`,
        'm',
      ),
    );
    expect(result.status).toBe(0);
  });

  it('prints the summary with the failures and exits 1 when a check fails', async () => {
    const victim = await pipeline.runtime.pool.query<{ record_id: string; coin: string }>(
      `SELECT record_id, coin FROM (
         SELECT record_id, coin, ts, amount + fee AS delta,
                lag(record_id) OVER w AS previous_id, lead(record_id) OVER w AS next_id
           FROM spot_record WINDOW w AS (PARTITION BY coin ORDER BY ts, length(record_id), record_id)) x
        WHERE previous_id IS NOT NULL AND next_id IS NOT NULL AND delta <> 0 ORDER BY ts LIMIT 1`,
    );
    const { record_id: recordId, coin } = victim.rows[0]!;
    const aside = await setAside(pipeline, 'spot_record', 'record_id = $1', [recordId]);
    try {
      // --full: the record is lost from a stretch the first run verified, which a nightly run does not read again.
      const result = await cliLive(['reconcile', '--account', 'demo', '--recount', 'recent', '--full']);
      expect(result.stdout).toMatch(new RegExp(`: FAILED, 2 of ${CHECKS} checks$`, 'm'));
      expect(result.stdout).toMatch(/^FAIL {2}spot balance continuity/m);
      expect(result.stdout).toMatch(/^FAIL {2}window counts/m);
      expect(result.stdout).toMatch(/^PASS {2}coverage/m);
      expect(result.stdout).toMatch(new RegExp(`^ {2}spot balance continuity: ${coin}: record \\d+ at `, 'm'));
      expect(result.stdout).toContain(`(not stored: ${recordId})`);
      expect(result.status).toBe(1);
    } finally {
      await aside.restore();
    }
    const rows = await db.prisma.reconciliationReport.findMany({ orderBy: { startedAt: 'asc' } });
    expect(rows.map((r) => [r.recount, r.passed])).toEqual([
      ['all', true],
      ['recent', false],
    ]);
  });

  it('--json prints the stored report as one object on stdout, progress staying on stderr', async () => {
    const json = await cliLive(['reconcile', '--account', 'demo', '--recount', 'all', '--json']);
    const report = JSON.parse(json.stdout) as {
      id: string;
      account: string;
      passed: boolean;
      checks: { name: string }[];
    };
    expect(report).toMatchObject({ account: 'demo', recount: 'all', passed: true });
    expect(report.checks.map((c) => c.name)).toEqual([
      'coverage',
      'balance-continuity',
      'paging-stuck',
      'window-counts',
      'futures-ledger',
      ...WALLET_LEDGERS,
    ]);
    expect(await db.prisma.reconciliationReport.findUnique({ where: { id: report.id } })).not.toBeNull();
    expect(json.stderr).toMatch(new RegExp(`^reconcile: check \\d/${CHECKS} `));
    expect(json.status).toBe(0);
  }, 90_000);

  it('logs go to stderr: with LOG_LEVEL=debug, --json stdout is still one JSON object and the log lines are on stderr', async () => {
    // --full: the windows were read minutes ago, and only a full check asks the exchange for them again.
    const json = await runCliLive(['reconcile', '--account', 'demo', '--recount', 'all', '--full', '--json'], {
      ...env,
      LOG_LEVEL: 'debug',
    });
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ account: 'demo', passed: true });
    const logs = json.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; module: string });
    // The re-count reads the exchange: every call is a debug line, none of them on stdout.
    expect(logs.filter((l) => l.msg === 'exchange call').length).toBeGreaterThan(0);
    expect(json.stdout).not.toContain('exchange call');
  }, 90_000);

  it('bad input: one line naming the option, exit 2, no report written', async () => {
    const before = await db.prisma.reconciliationReport.count();
    const badMode = runCli(['reconcile', '--account', 'demo', '--recount', 'sometimes'], env);
    expect(badMode.stderr).toBe('ValidationError: --recount: must be one of none, recent, all, edge (got "sometimes")');
    expect(badMode.status).toBe(2);
    const unknown = runCli(['reconcile', '--account', 'nobody'], env);
    expect(unknown.stderr).toBe(
      'AccountNotFoundError: account "nobody" is not registered (see: ledgerline accounts list)',
    );
    expect(unknown.status).toBe(2);
    const missing = runCli(['reconcile'], env);
    expect(missing.stderr).toMatch(/required option '--account <name>' not specified/);
    expect(missing.status).toBe(2);
    expect(await db.prisma.reconciliationReport.count()).toBe(before);
  });
});

describe('the reconcile queue', () => {
  async function finished(queue: Queue, jobId: string) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const job = await queue.getJob(jobId);
      const state = await job?.getState();
      // Read the job again once it is finished: the copy read before its state can predate the
      // failure (attemptsMade 0 beside a 'failed' state: CI met it).
      if (job && (state === 'completed' || state === 'failed')) return { job: (await queue.getJob(jobId))!, state };
      if (Date.now() > deadline) throw new Error(`job ${jobId} not finished (${state})`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('runs one reconciliation per account and day, with only the account id in the payload, and logs it by name', async () => {
    const { runtime, accountId } = pipeline;
    const queue = runtime.queues.get(QUEUE.reconcile);
    const workers = pipeline.startWorkers();
    try {
      const day = new Date(Date.UTC(2026, 10, 21, 23, 59));
      const first = await enqueueReconciliation(runtime, accountId, { recount: 'none', now: day });
      const again = await enqueueReconciliation(runtime, accountId, { recount: 'none', now: day });
      expect(first.id).toBe(`reconcile.${accountId}.2026-11-21`);
      expect(again.id).toBe(first.id);
      expect(first.data).toEqual({ accountId, recount: 'none' });

      const { job, state } = await finished(queue, first.id!);
      expect(state).toBe('completed');
      expect(job.returnvalue).toMatchObject({ passed: true, failedChecks: [] });
      const report = await db.prisma.reconciliationReport.findUniqueOrThrow({
        where: { id: job.returnvalue.reportId },
      });
      expect(report).toMatchObject({ accountId, recount: 'none', passed: true });

      // The same day again: today's finished run is the answer; a manual re-run replaces it.
      const later = await enqueueReconciliation(runtime, accountId, { now: day });
      expect(later.id).toBe(first.id);
      expect(await later.getState()).toBe('completed');
      const rerun = await enqueueReconciliation(runtime, accountId, { now: day, replaceFinished: true });
      expect(rerun.id).toBe(first.id);
      expect(rerun.data.recount).toBe('recent');
      expect((await finished(queue, rerun.id!)).state).toBe('completed');
      expect(await db.prisma.reconciliationReport.count({ where: { recount: 'recent', passed: true } })).toBe(1);
      const nextDay = await enqueueReconciliation(runtime, accountId, {
        recount: 'none',
        now: new Date(day.getTime() + 60_000),
      });
      expect(nextDay.id).toBe(reconcileJobId(accountId, new Date(Date.UTC(2026, 10, 22))));
      await finished(queue, nextDay.id!);

      const logged = logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
      const started = logged.filter((l) => l.msg === 'reconciliation started' && l.accountId === accountId);
      const completed = logged.filter((l) => l.msg === 'reconciliation completed for demo: passed');
      expect(started).toHaveLength(3);
      expect(completed).toHaveLength(3);
      expect(completed[0]).toMatchObject({ module: 'reconcile', account: 'demo', accountId, passed: true });
      const secrets = [pipeline.sim.demo.secretKey, pipeline.sim.demo.passphrase];
      expect(logLines.filter((line) => secrets.some((s) => line.includes(s)))).toEqual([]);
    } finally {
      await workers.close();
    }
  });

  it('an unknown account fails the job at once, without retries and without a report', async () => {
    const { runtime } = pipeline;
    const queue = runtime.queues.get(QUEUE.reconcile);
    const workers = pipeline.startWorkers();
    try {
      const before = await db.prisma.reconciliationReport.count();
      const ghost = randomUUID();
      await queue.add(JOB.reconcileAccount, { accountId: ghost, recount: 'none' }, { jobId: 'ghost' });
      const { job, state } = await finished(queue, 'ghost');
      expect(state).toBe('failed');
      expect(job.attemptsMade).toBe(1);
      expect(job.failedReason).toBe(
        `AccountNotFoundError: account "${ghost}" is not registered (see: ledgerline accounts list)`,
      );
      expect(await db.prisma.reconciliationReport.count()).toBe(before);
    } finally {
      await workers.close();
    }
  });
});
