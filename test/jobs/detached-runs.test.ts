import { describe, expect, it } from 'vitest';

import { DetachedRuns } from '../../jobs/reconcile/detached-runs.ts';
import { ValidationError } from '../../src/errors/index.ts';
import { useTestRedis } from '../helpers/test-redis.ts';

const redis = useTestRedis('detached');

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('runs apart from their jobs (detached-runs.ts)', () => {
  it('one run per job: a second process finds the claim and starts nothing; the outcome is taken once', async () => {
    const here = new DetachedRuns(redis.redis, redis.prefix, 'here');
    const there = new DetachedRuns(redis.redis, redis.prefix, 'there');
    const gate = deferred<string>();
    let started = 0;
    const work = () => {
      started += 1;
      return gate.promise;
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
    // Any process takes it, once; the claim is gone, so a retry under the same run would start again.
    expect(await there.takeOutcome('job@1')).toEqual({ ok: true, value: 'report-1' });
    expect(await here.takeOutcome('job@1')).toBeUndefined();
    expect(started).toBe(1);
    expect(
      await there.start(
        'job@1',
        async () => 'again',
        () => true,
      ),
    ).toBeDefined();
  });

  it('a failed run leaves its error and whether a retry may help; a run settled before its job left wakes it at once', async () => {
    const runs = new DetachedRuns(redis.redis, redis.prefix, 'here');
    const run = await runs.start(
      'job@2',
      async () => {
        throw new ValidationError('recount', 'must be one of none, recent, all, edge', 'x');
      },
      () => false,
    );
    expect(await run!.settledWithin(1_000)).toEqual({
      ok: false,
      message: expect.stringMatching(/^ValidationError: recount: must be one of/),
      retryable: false,
    });
    let woken = 0;
    await run!.leaveSlot(async () => {
      woken += 1;
    });
    expect(woken).toBe(1);
  });
});
