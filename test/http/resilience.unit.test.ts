import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';

import { answerFailuresPlainly, redisReadiness, requireRedis } from '../../src/http/resilience.ts';

describe('the web page when its stores fail', () => {
  it('answers an unexpected error with a plain 503 that quotes nothing of it', async () => {
    const app = Fastify({ logger: false });
    answerFailuresPlainly(app);
    app.get('/', async () => {
      throw new Error(
        "Invalid `prisma.account.findMany()` invocation in /srv/src/http/web-app.ts:73 Can't reach 10.0.0.5",
      );
    });
    const response = await app.inject({ method: 'GET', url: '/' });
    expect(response.statusCode).toBe(503);
    expect(response.body).toBe('temporarily unavailable, try again later\n');
    await app.close();
  });

  it('answers 503 within seconds when Redis is down, instead of waiting for it forever', async () => {
    // Nothing listens on port 1; the client keeps retrying, as BullMQ's connections do.
    const redis = new Redis({ port: 1, maxRetriesPerRequest: null, retryStrategy: () => 200 });
    redis.on('error', () => undefined);
    const app = Fastify({ logger: false });
    requireRedis(app, redisReadiness(redis));
    app.get('/', async () => 'never');
    app.get('/healthz', async () => 'ok');
    const started = Date.now();
    const [page, health] = await Promise.all([
      app.inject({ method: 'GET', url: '/' }),
      app.inject({ method: 'GET', url: '/healthz' }),
    ]);
    expect(page.statusCode).toBe(503);
    expect(page.body).toMatch(/Redis\) is unavailable/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(health.statusCode).toBe(200);
    await app.close();
    redis.disconnect();
  });
});
