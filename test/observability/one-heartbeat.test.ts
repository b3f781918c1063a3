import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type AlertSender, createAlertSender } from '../../src/app/observability/alert-sender.ts';
import { redisAlertClaim } from '../../src/app/observability/heartbeat-claim.ts';
import { startSuccessHeartbeat } from '../../src/app/observability/success-heartbeat.ts';
import { SecretBox } from '../../src/crypto/secret-box.ts';
import { createRootLogger } from '../../src/logging/logger.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { useTestRedis } from '../helpers/test-redis.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const HOUR = 3_600_000;
const PERIOD = 26 * HOUR;
const db = useTestDatabase('oneheartbeat');
const redis = useTestRedis('oneheartbeat');
const log = createRootLogger({ level: 'silent' });
let pool: pg.Pool;
let receiver: WebhookReceiver;
let sender: AlertSender;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: db.url });
  receiver = await startWebhookReceiver();
  sender = createAlertSender({ url: receiver.url, log, baseDelayMs: 50 });
  const box = new SecretBox(Buffer.alloc(32, 7));
  await db.prisma.account.create({
    data: {
      name: 'acme',
      uid: '1',
      baseUrl: 'http://x',
      apiKey: 'k',
      secretEnc: box.seal('s'),
      passphraseEnc: box.seal('p'),
    },
  });
});
afterAll(async () => {
  await pool.end();
  await receiver.close();
});

const heartbeats = () => receiver.received.filter((a) => a.event === 'no_recent_success');

describe('the no-success heartbeat with several workers', () => {
  it('sends one alert per period between two workers that come due at the same moment, and one more a period later', async () => {
    let now = Date.UTC(2026, 10, 24);
    const claim = redisAlertClaim(redis.redis, redis.prefix);
    const workers = [1, 2].map(() =>
      startSuccessHeartbeat({ pool, sender, log, noSuccessAfterMs: PERIOD, clock: () => now, claim }),
    );
    try {
      const checkAll = async () => {
        await Promise.all(workers.map((w) => w.check()));
        await sender.settled();
      };
      await checkAll();
      expect(heartbeats()).toHaveLength(0);
      now += PERIOD + HOUR;
      await checkAll();
      await checkAll();
      expect(heartbeats()).toHaveLength(1);
      now += PERIOD - 2 * HOUR;
      await checkAll();
      expect(heartbeats()).toHaveLength(1);
      now += 2 * HOUR;
      await checkAll();
      expect(heartbeats()).toHaveLength(2);
    } finally {
      for (const worker of workers) worker.close();
    }
  });

  it('without the shared claim each worker would alert: the claim is what makes it one', async () => {
    let now = Date.UTC(2026, 10, 24);
    const before = heartbeats().length;
    const workers = [1, 2].map(() =>
      startSuccessHeartbeat({ pool, sender, log, noSuccessAfterMs: PERIOD, clock: () => now }),
    );
    try {
      now += PERIOD + HOUR;
      await Promise.all(workers.map((w) => w.check()));
      await sender.settled();
      expect(heartbeats().length - before).toBe(2);
    } finally {
      for (const worker of workers) worker.close();
    }
  });
});
