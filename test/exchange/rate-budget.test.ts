import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';

import { RateBudget, type RateRule } from '../../src/exchange/rate-budget/rate-budget.ts';
import { TEST_REDIS_URL, useTestRedis } from '../helpers/test-redis.ts';

// Read testRedis.prefix inside each test: it changes per test.
const testRedis = useTestRedis('exchange-budget');
const { redis } = testRedis;
const second = new Redis(TEST_REDIS_URL);
afterAll(() => second.disconnect());

function budget(connection: Redis, marginMs = 5, inFlightMs = 60_000): RateBudget {
  return new RateBudget(connection, { prefix: testRedis.prefix, marginMs, inFlightMs, pollMs: 2 });
}

describe('RateBudget (sliding log in Redis)', () => {
  it('grants `limit` slots at once, then makes the next caller wait one window after the oldest completion', async () => {
    const rules: RateRule[] = [{ key: 'spotRecord:uid:1', limit: 3, windowMs: 200 }];
    const shared = budget(redis);
    const slots = [];
    for (let i = 0; i < 3; i += 1) slots.push(await shared.acquire(rules));
    // Taken before the first completion: the oldest completion is at or after it.
    const firstCompletion = Date.now();
    for (const slot of slots) await shared.complete(slot);
    const probe = await shared.tryAcquire(rules);
    const probed = Date.now() - firstCompletion;
    expect('waitMs' in probe && probe.waitMs).toBeGreaterThanOrEqual(205 - probed - 1);
    const fourth = await shared.acquire(rules);
    expect(Date.now() - firstCompletion).toBeGreaterThanOrEqual(200);
    expect(fourth.waitedMs).toBeGreaterThan(0);
  });

  it('keeps a slot taken while the request is in flight, however old it gets', async () => {
    const rules: RateRule[] = [{ key: 'history:uid:1', limit: 1, windowMs: 500 }];
    const shared = budget(redis);
    const slot = await shared.acquire(rules);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await shared.tryAcquire(rules)).toEqual({ waitMs: 2 });
    await shared.complete(slot);
    const probe = await shared.tryAcquire(rules);
    expect('waitMs' in probe && probe.waitMs).toBeGreaterThan(300);
  });

  it('frees the slot of a crashed caller after inFlightMs plus the window', async () => {
    const rules: RateRule[] = [{ key: 'crash:uid:1', limit: 1, windowMs: 50 }];
    const shared = budget(redis, 0, 100);
    const started = Date.now(); // before the first slot is taken: its in-flight stamp is later
    await shared.acquire(rules); // never completed
    await shared.acquire(rules);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
  });

  it('holds every rule of a request at once: the per-IP rule blocks even when the endpoint rule has room', async () => {
    const endpointRule = { key: 'a:uid:1', limit: 10, windowMs: 1_000 };
    const ipRule = { key: 'all:ip:h', limit: 2, windowMs: 1_000 };
    const shared = budget(redis);
    await shared.complete(await shared.acquire([endpointRule, ipRule]));
    await shared.complete(await shared.acquire([{ key: 'b:uid:1', limit: 10, windowMs: 1_000 }, ipRule]));
    expect('waitMs' in (await shared.tryAcquire([endpointRule, ipRule]))).toBe(true);
    // A refused attempt took nothing from the endpoint rule.
    expect(await redis.zcard(`${testRedis.prefix}:log:a:uid:1`)).toBe(1);
  });

  it('pauses a rule after a 429', async () => {
    const rules: RateRule[] = [{ key: 'paused:uid:1', limit: 100, windowMs: 1_000 }];
    const shared = budget(redis);
    const pausedAt = Date.now();
    await shared.pause('paused:uid:1', 300);
    const probe = await shared.tryAcquire(rules);
    expect('waitMs' in probe && probe.waitMs).toBeGreaterThanOrEqual(299 - (Date.now() - pausedAt));
    await shared.pause('paused:uid:1', 10); // never shortens a pause
    const again = await shared.tryAcquire(rules);
    expect('waitMs' in again && again.waitMs).toBeGreaterThanOrEqual(299 - (Date.now() - pausedAt));
  });

  it('never lets two processes put more than `limit` requests in any window, measured at the server side', async () => {
    const limit = 4;
    const windowMs = 150;
    const rules: RateRule[] = [{ key: 'shared:uid:1', limit, windowMs }];
    // Two connections stand for two processes; six callers race on each.
    const budgets = [budget(redis), budget(second)];
    const events: { sent: number; done: number }[] = [];
    const deadline = Date.now() + 1_200;
    await Promise.all(
      Array.from({ length: 12 }, async (_, caller) => {
        const own = budgets[caller % 2]!;
        while (Date.now() < deadline) {
          const slot = await own.acquire(rules);
          const sent = Date.now();
          await new Promise((resolve) => setTimeout(resolve, (caller % 3) * 7)); // the request's latency
          const done = Date.now();
          await own.complete(slot);
          events.push({ sent, done });
        }
      }),
    );
    // A server could count a request at any moment between sending and completion: the
    // (i+limit)-th request must be sent at least one window after the i-th completed.
    const sends = events.map((event) => event.sent).sort((a, b) => a - b);
    const dones = events.map((event) => event.done).sort((a, b) => a - b);
    for (let i = 0; i + limit < sends.length; i += 1)
      expect(sends[i + limit]! - dones[i]!).toBeGreaterThanOrEqual(windowMs);
    // And the budget is used: well over half the theoretical maximum of limit per (window + latency).
    expect(events.length).toBeGreaterThan(((1_200 / (windowMs + 20)) * limit) / 2);
  });
});
