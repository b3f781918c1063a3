import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningSimulator, startSimulator } from '../../src/simulator/index.ts';
import { allSubDepositWithdrawal } from '../../src/streams/transfers/pager.ts';
import { useTestRedis } from '../helpers/test-redis.ts';
import { simulatorClient } from './helpers/simulator-client.ts';

// Read testRedis.prefix inside each test: it changes per test.
const testRedis = useTestRedis('signed-caller');
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ scale: 'tiny' });
});
afterAll(async () => {
  await sim?.close();
});

/** Rejects when `promise` takes longer than `ms`, naming what waited. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_resolve, reject) => setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)),
  ]);
}

describe('SignedCaller', () => {
  it('gives the rate-budget slot back when signing throws, so the next call is not held for 60 s', async () => {
    let broken = true;
    const client = simulatorClient(sim, testRedis.redis, testRedis.prefix, {
      // The signature's timestamp comes from the clock: a clock that throws makes signing throw.
      clock: () => {
        if (broken) throw new Error('the clock is unavailable');
        return sim.clock.now();
      },
      // One request a second: a slot never given back would block the endpoint for its 60 s lease.
      rateBudget: { perSecond: { allSubDepositWithdrawal: 1 } },
    });
    try {
      await expect(allSubDepositWithdrawal(client, {})).rejects.toThrow('the clock is unavailable');
      broken = false;
      const page = await within(5_000, 'the call after a failed signing', allSubDepositWithdrawal(client, {}));
      expect(Array.isArray(page.list)).toBe(true);
    } finally {
      await client.close();
    }
  });
});
