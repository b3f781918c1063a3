import type { FastifyInstance } from 'fastify';
import type { Cluster, Redis } from 'ioredis';

const READY_WAIT_MS = 2_000;

/**
 * What the page answers when its stores fail. Fastify's default would send
 * the error itself (a Prisma message quotes source lines and the database
 * host); the error is logged instead and the browser gets a plain 503.
 */
export function answerFailuresPlainly(app: FastifyInstance): void {
  app.setErrorHandler(async (error: Error & { statusCode?: number; code?: string }, request, reply) => {
    const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 503;
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    // @fastify/csrf-protection's refusal: most often a page left open too long, or from elsewhere.
    const csrf = error.code?.startsWith('FST_CSRF_') === true;
    return reply
      .code(status)
      .type('text/plain; charset=utf-8')
      .send(
        status >= 500
          ? 'temporarily unavailable, try again later\n'
          : csrf
            ? 'this form has expired or was not sent from this site: go back, reload the page and try again\n'
            : 'bad request\n',
      );
  });
}

/**
 * BullMQ waits for Redis without limit (its connections retry forever), so
 * with Redis down every page touching a queue would hang. The returned check
 * waits at most two seconds for the connection (one shared wait, not a
 * listener per request) and says whether it is ready.
 */
export function redisReadiness(redis: Redis | Cluster): () => boolean | Promise<boolean> {
  let waiting: Promise<boolean> | undefined;
  return () => {
    if (redis.status === 'ready') return true;
    waiting ??= new Promise<boolean>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        redis.off('ready', done);
        waiting = undefined;
        resolve(redis.status === 'ready');
      };
      const timer = setTimeout(done, READY_WAIT_MS);
      redis.once('ready', done);
    });
    return waiting;
  };
}

/**
 * Each request waits for Redis as redisReadiness does, then gets a 503. The
 * health check does not need Redis.
 */
export function requireRedis(app: FastifyInstance, ready: () => boolean | Promise<boolean>): void {
  app.addHook('preHandler', async (request, reply) => {
    const url = request.url.split('?')[0]!;
    if (url === '/healthz' || (await ready())) return;
    return reply
      .code(503)
      .type('text/plain; charset=utf-8')
      .send('the queue (Redis) is unavailable, try again later\n');
  });
}
