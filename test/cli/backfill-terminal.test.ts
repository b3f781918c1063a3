import { existsSync, readFileSync, rmSync } from 'node:fs';

import { afterAll, describe, expect, it } from 'vitest';

import type { RunSummary } from '../../src/app/services/list-runs.ts';
import { killSpawned, runCliLive } from '../helpers/cli.ts';
import { usePipeline } from '../helpers/pipeline.ts';
import { plainText, runInPty } from '../helpers/pty.ts';
import { TEST_REDIS_URL } from '../helpers/test-redis.ts';

const DAY = 86_400_000;
// The simulator allows 50 times the exchange's rates; the CLI keeps the real budgets (factor 1):
// a spot backfill then spends its time waiting for its turn in the 1/s budget, as a person's does.
const file = usePipeline('backfillpty', { workers: false });
const env = (over: Record<string, string> = {}) => ({
  DATABASE_URL: file.db.url,
  REDIS_URL: TEST_REDIS_URL,
  QUEUE_PREFIX: file.pipeline.runtime.prefix,
  EXCHANGE_RATE_FACTOR: '1',
  LOG_LEVEL: 'info',
  ...over,
});
const from = new Date(Date.now() - 80 * DAY).toISOString().slice(0, 10);
const backfill = ['backfill', '--account', 'demo', '--stream', 'spot', '--from', from, '--with-worker'];

afterAll(killSpawned);

/** What the interrupted run said it had done: the rerun's resuming line must agree with it. */
let interruptedDone = 0;

async function runs(): Promise<RunSummary[]> {
  const result = await runCliLive(['runs', '--json'], env());
  expect(result.status, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { runs: RunSummary[] }).runs;
}

/**
 * Spot windows done that a later run meets again whole. The newest window ends at the run's "now"; the
 * rerun's "now" is later, so that one is planned again as its unread remainder, not as complete.
 */
async function closedWindowsDone(): Promise<number> {
  const result = await file.pipeline.runtime.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM sync_window
      WHERE stream = 'spot' AND status = 'done'
        AND window_end < (SELECT max(window_end) FROM sync_window WHERE stream = 'spot')`,
  );
  return result.rows[0]!.n;
}

describe('backfill in a terminal, as a person sees it', () => {
  it('the bar shows "ETA 1m 40s"-style text and the budget it waits for, never NULL or INF, and no log line between bars; Ctrl-C says how far it got', async () => {
    const run = runInPty(backfill, env());
    await run.waitFor(/ETA \d+(s|m \d\ds), waiting for its 1\/s budget/);
    // Ctrl-C once a window the rerun will meet again whole is done and others are still open.
    const deadline = Date.now() + 60_000;
    while ((await closedWindowsDone()) < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(await closedWindowsDone()).toBeGreaterThan(0);
    run.press('\x03');
    expect(await run.exited).toBe(130);

    const screen = plainText(run.screen());
    const logFile = /^worker logs: (\S+)$/m.exec(screen)?.[1];
    expect(logFile).toBeDefined();
    // The worker did log (at INFO, a dozen lines a window): into the file, not between the bars.
    expect(existsSync(logFile!) && readFileSync(logFile!, 'utf8')).toMatch(/"level":30/);
    rmSync(logFile!, { force: true });
    const bars = screen.split('\n').filter((line) => line.startsWith(' spot '));
    expect(bars.length).toBeGreaterThan(1);
    for (const bar of bars) {
      expect(bar).toMatch(
        /^ spot +\|[█░]+\| \d+\/\d+ windows \| (ETA \d+(s|m \d\ds|h \d\dm), waiting for its 1\/s budget|done)/,
      );
      expect(bar).not.toMatch(/NULL|INF|NaN|undefined/);
      // Fitted to the 80-column terminal: each part whole (no `~13` or `1m 09s elap` cut off).
      expect(bar.length, bar).toBeLessThan(80);
      expect(bar).toMatch(/(\| \d+ rows\/s|\| \d+ rows|requests left|budget|done)$/);
    }
    const first = screen.indexOf(bars[0]!);
    const last = screen.lastIndexOf(bars.at(-1)!);
    // Between the first bar and the last, only bars (and the terminal's echo of the Ctrl-C typed):
    // no log line (pino's level names, its JSON) scrolled them away.
    const between = screen.slice(first, last).split('\n');
    expect(between.filter((line) => line !== '' && line !== '^C' && !line.startsWith(' spot '))).toEqual([]);
    expect(screen).not.toMatch(/\b(INFO|WARN)\b|"level"/);

    const interrupted = /^interrupted: (\d+) of (\d+) windows done; run the same command to resume$/m.exec(screen);
    expect(interrupted, screen).not.toBeNull();
    const [done, total] = [Number(interrupted![1]), Number(interrupted![2])];
    interruptedDone = done;
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(total);
    const [recorded] = await runs();
    expect(recorded).toMatchObject({ kind: 'sync', status: 'failed', detail: { interrupted: true } });
    expect(recorded!.failures).toEqual([`interrupted: ${done} of ${total} windows done`]);
  }, 180_000);

  it('the same command again says it is resuming, its plan agrees with its bar, and both runs are listed', async () => {
    const before = await closedWindowsDone();
    const run = runInPty(backfill, env({ EXCHANGE_RATE_FACTOR: '20' }));
    expect(await run.exited).toBe(0);
    const screen = plainText(run.screen());
    // A run that succeeded leaves no worker log behind in the temp folder (the interrupted one's was kept).
    const logFile = /^worker logs: (\S+)$/m.exec(screen)?.[1];
    expect(logFile).toBeDefined();
    expect(existsSync(logFile!)).toBe(false);
    const plan =
      /: (\d+) windows, (\d+) already complete, (\d+) enqueued(?: \((\d+) to read: (\d+) still queued from an earlier run\))?$/m.exec(
        screen,
      );
    expect(plan, screen).not.toBeNull();
    const [total, complete] = [Number(plan![1]), Number(plan![2])];
    expect(complete).toBeGreaterThanOrEqual(before);
    // The interrupted run's count and this one agree, or this one says why: the newest window, read up
    // to the last run's end, is read on to now (not "already done"); the line adds it back.
    const resuming = new RegExp(
      `^resuming: ${complete} of ${total} windows already done(?:, (\\d+) more read up to the last run's end ` +
        `\\(their rest, up to now, is read now\\): (\\d+) read before)?$`,
      'm',
    ).exec(screen);
    expect(resuming, screen).not.toBeNull();
    if (resuming![1] !== undefined) expect(Number(resuming![2])).toBe(complete + Number(resuming![1]));
    expect(complete + Number(resuming![1] ?? 0)).toBeGreaterThanOrEqual(interruptedDone);
    // The bar counts the windows still to read: its total and the plan's remainder are one number.
    const bar = screen
      .split('\n')
      .filter((line) => line.startsWith(' spot '))
      .at(-1);
    expect(bar).toMatch(new RegExp(`\\| ${total - complete}/${total - complete} windows \\| done`));
    expect(screen).toMatch(new RegExp(`^spot: ${total - complete}/${total - complete} windows done`, 'm'));

    const listed = await runCliLive(['runs'], env());
    const lines = listed.stdout.split('\n').filter((line) => /\bsync\b/.test(line));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/ sync +succeeded +demo /);
    expect(lines[1]).toMatch(/ sync +interrupted +demo /);
  }, 180_000);

  it('with no worker running, the bar says it waits for a worker, not an ETA at its budget', async () => {
    const run = runInPty(
      ['backfill', '--account', 'demo', '--stream', 'transfers', '--from', from],
      env({ NO_WORKER_WAIT_MS: '4000' }),
    );
    await run.waitFor(/waiting for a worker to take the windows/);
    expect(await run.exited).toBe(3);
    const bars = plainText(run.screen())
      .split('\n')
      .filter((line) => line.startsWith(' transfers '));
    expect(bars.length).toBeGreaterThan(0);
    for (const bar of bars) expect(bar).not.toMatch(/ETA|budget/);
  }, 60_000);

  it('with no worker running, it waits a bounded time, then stops with one line saying how to start one', async () => {
    const started = Date.now();
    const result = await runCliLive(
      ['backfill', '--account', 'demo', '--stream', 'transfers', '--from', from],
      env({ NO_WORKER_WAIT_MS: '3000' }),
      150_000,
    );
    expect(result.status).toBe(3);
    expect(result.stdout).toMatch(/^warning: no worker is running; .*waiting 3 s for one$/m);
    expect(result.stderr.split('\n').at(-1)).toBe(
      'NoWorkerError: no worker took the jobs within 3 s; start one with `ledgerline worker` (or pass --with-worker), then run the same command again to follow it',
    );
    // It gives up after its 3 s wait, not never: the bound leaves room for a loaded machine's start-up.
    expect(Date.now() - started).toBeLessThan(90_000);
  }, 180_000);
});
