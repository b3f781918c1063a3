import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Cluster, Redis } from 'ioredis';

import { PROBLEMS, sendProblem } from './error-pages.ts';

const READY_WAIT_MS = 2_000;

/**
 * What the page answers when a request fails. Fastify's default would send the error itself as
 * JSON (a Prisma message quotes source lines and the database host): the error is logged instead,
 * and the browser gets a page saying what happened and what to do (error-pages.ts), a script one
 * plain line. Also the answer to an address with no route, and to one the router cannot read (a
 * malformed or over-long part: fastify's `frameworkErrors`, which otherwise answer raw JSON).
 */
export function answerFailuresPlainly(app: FastifyInstance): void {
  app.setErrorHandler(async (error: Error & { statusCode?: number; code?: string }, request, reply) => {
    const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 503;
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    // @fastify/csrf-protection's refusal: most often a page left open too long, or from elsewhere.
    if (error.code?.startsWith('FST_CSRF_') === true) return sendProblem(reply, PROBLEMS.formExpired());
    if (status >= 500) return sendProblem(reply, PROBLEMS.unavailable());
    if (status === 413) return sendProblem(reply, PROBLEMS.tooLarge());
    if (status === 404) return sendProblem(reply, PROBLEMS.noRoute());
    return sendProblem(reply, { ...PROBLEMS.badRequest(), status });
  });
  app.setNotFoundHandler(async (_request, reply) => sendProblem(reply, PROBLEMS.noRoute()));
}

/** Fastify's `frameworkErrors` option: the router's own refusals (a bad or over-long address) as a page. */
export function frameworkErrorPage(_error: Error, _request: FastifyRequest, reply: FastifyReply): void {
  void sendProblem(reply, PROBLEMS.badAddress());
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
    return sendProblem(reply, PROBLEMS.unavailable('the queue (Redis) is unavailable, try again later'));
  });
}
