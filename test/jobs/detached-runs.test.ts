import { describe, expect, it } from 'vitest';

import { DetachedRuns, type RunOutcome, type RunStore } from '../../jobs/reconcile/detached-runs.ts';
import { ValidationError } from '../../src/errors/index.ts';
import { SupersededRunError } from '../../src/reconcile/superseded-run-error.ts';
import { useTestRedis } from '../helpers/test-redis.ts';

const redis = useTestRedis('detached');

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** The store's contract in memory (run-fence.ts keeps it in Postgres): results and errors, fenced by token. */
class MemoryStore implements RunStore<string> {
  readonly rows = new Map<string, { token: number; value?: string; error?: { message: string; retryable: boolean } }>();

  async takeSettled(runId: string): Promise<RunOutcome<string> | undefined> {
    const row = this.rows.get(runId);
    if (row?.value !== undefined) return { ok: true, value: row.value };
    if (row?.error === undefined) return undefined;
    const { error } = row;
    delete row.error;
    return { ok: false, ...error };
  }

  async fence(runId: string): Promise<number | undefined> {
    const row = this.rows.get(runId) ?? { token: 0 };
    if (row.value !== undefined) return undefined;
    row.token += 1;
    this.rows.set(runId, row);
    return row.token;
  }

  async storeError(runId: string, token: number, message: string, retryable: boolean): Promise<boolean> {
    const row = this.rows.get(runId);
    if (row?.token !== token || row.value !== undefined) return false;
    row.error = { message, retryable };
    return true;
  }

  /** What a run's work does at its end: writes its result while its token is the latest. */
  write(runId: string, token: number, value: string): string {
    const row = this.rows.get(runId);
    if (row?.token !== token || row.value !== undefined) throw new SupersededRunError('account');
    row.value = value;
    return value;
  }
}

describe('runs apart from their jobs (detached-runs.ts)', () => {
  it('one run per job: a second process finds the claim and starts nothing; the stored result is found by any process', async () => {
    const store = new MemoryStore();
    const here = new DetachedRuns(redis.redis, redis.prefix, 'here', store);
    const there = new DetachedRuns(redis.redis, redis.prefix, 'there', store);
    const gate = deferred<string>();
    let started = 0;
    const work = async (token: number) => {
      started += 1;
      return store.write('job@1', token, await gate.promise);
    };
    const run = await here.start('job@1', work, () => true);
    expect(run).toBeDefined();
    expect(await there.start('job@1', work, () => true)).toBeUndefined();
    expect(here.has('job@1')).toBe(true);
    expect(await run!.settledWithin(20)).toBeUndefined();

    let woken = 0;
    await run!.leaveSlot(async () => {
      woken += 1;
    });
    gate.resolve('report-1');
    await expect.poll(() => woken).toBe(1);
    expect(here.has('job@1')).toBe(false);
    expect(await there.takeOutcome('job@1')).toEqual({ ok: true, value: 'report-1' });
    expect(started).toBe(1);
    // The claim is gone, but a run whose result is stored is never started again.
    const again = await there.start('job@1', work, () => true);
    expect(await again!.settledWithin(1_000)).toEqual({ ok: true, value: 'report-1' });
    expect(started).toBe(1);
    // Nothing is left in Redis for the job to find later.
    expect(await redis.redis.keys(`${redis.prefix}:*`)).toEqual([]);
  });

  it('a failed run leaves its error and whether a retry may help, taken once; a run settled before its job left wakes it at once', async () => {
    const store = new MemoryStore();
    const runs = new DetachedRuns(redis.redis, redis.prefix, 'here', store);
    const run = await runs.start(
      'job@2',
      async () => {
        throw new ValidationError('recount', 'must be one of none, recent, all, edge', 'x');
      },
      () => false,
    );
    const failure = {
      ok: false,
      message: expect.stringMatching(/^ValidationError: recount: must be one of/),
      retryable: false,
    };
    expect(await run!.settledWithin(1_000)).toEqual(failure);
    let woken = 0;
    await run!.leaveSlot(async () => {
      woken += 1;
    });
    expect(woken).toBe(1);
    expect(await runs.takeOutcome('job@2')).toEqual(failure);
    expect(await runs.takeOutcome('job@2')).toBeUndefined();
  });

  it('a run that stalled past its claim while another process took the job writes nothing, keeps the new claim and wakes no job', async () => {
    const store = new MemoryStore();
    const stalled = new DetachedRuns(redis.redis, redis.prefix, 'stalled', store);
    const taker = new DetachedRuns(redis.redis, redis.prefix, 'taker', store);
    const first = deferred<string>();
    const second = deferred<string>();
    const run = await stalled.start(
      'job@3',
      async (token) => store.write('job@3', token, await first.promise),
      () => true,
    );
    let woken = 0;
    await run!.leaveSlot(async () => {
      woken += 1;
    });
    // The stalled process's claim expires (it could not renew it).
    await redis.redis.del(`${redis.prefix}:reconcile-run:claim:job@3`);
    const taken = await taker.start(
      'job@3',
      async (token) => store.write('job@3', token, await second.promise),
      () => true,
    );
    expect(taken).toBeDefined();

    first.resolve('stale report');
    expect(await run!.settledWithin(1_000)).toBe('superseded');
    expect(woken).toBe(0);
    expect(await redis.redis.get(`${redis.prefix}:reconcile-run:claim:job@3`)).toMatch(/^taker:/);
    expect(await taker.takeOutcome('job@3')).toBeUndefined();

    second.resolve('report');
    expect(await taken!.settledWithin(1_000)).toEqual({ ok: true, value: 'report' });
    expect(await taker.takeOutcome('job@3')).toEqual({ ok: true, value: 'report' });
  });
});
