import { Queue } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';

import { createRuntime } from '../../jobs/composition/create-runtime.ts';
import { upsertSchedules } from '../../jobs/composition/schedules.ts';
import { JOB_OPTIONS, QUEUE } from '../../jobs/definitions.ts';
import { loadConfig } from '../../src/config/config.ts';
import { randomPrefix, TEST_REDIS_URL } from '../helpers/test-redis.ts';

// No database is touched: schedules live in Redis only.
const config = loadConfig({ REDIS_URL: TEST_REDIS_URL, NODE_ENV: 'test' });
const prefix = randomPrefix('sched-opts').replaceAll(':', '-');
const runtime = createRuntime(config, { prefix });

afterAll(async () => {
  const keys = await runtime.redis.keys(`${prefix}:*`);
  if (keys.length > 0) await runtime.redis.del(...keys);
  await runtime.close();
});

describe('scheduled job options', () => {
  it("gives each scheduled job its queue's attempts, backoff and retention, so a blip at 02:00 is retried and finished jobs are trimmed", async () => {
    await upsertSchedules(runtime);
    for (const queueName of [QUEUE.sync, QUEUE.marketData] as const) {
      // A plain Queue (no default options of its own) reads what is stored in Redis.
      const reader = new Queue(queueName, { prefix, connection: runtime.redis });
      try {
        const delayed = await reader.getDelayed();
        expect(delayed.length).toBeGreaterThan(0);
        const expected = JOB_OPTIONS[queueName];
        for (const job of delayed) {
          expect(job.opts.attempts, `${queueName}/${job.name} attempts`).toBe(expected.attempts);
          expect(job.opts.backoff, `${queueName}/${job.name} backoff`).toEqual(expected.backoff);
          expect(job.opts.removeOnComplete, `${queueName}/${job.name} removeOnComplete`).toEqual(
            expected.removeOnComplete,
          );
          expect(job.opts.removeOnFail, `${queueName}/${job.name} removeOnFail`).toEqual(expected.removeOnFail);
        }
      } finally {
        await reader.close();
      }
    }
  });
});
