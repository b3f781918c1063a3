import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { HTTPMethods } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { QueueRegistry } from '../../jobs/composition/queue-registry.ts';
import { QUEUE } from '../../jobs/definitions.ts';
import { createRedisConnection } from '../../src/app/redis-connection.ts';
import { TEST_REDIS_URL } from '../helpers/test-redis.ts';
import { spellings } from './path-spellings.ts';
import { type ServedRoute, servedRoutes } from './served-routes.ts';
import { ADMIN_TOKEN, signIn, TOKEN, useWebApp } from './web-fixture.ts';

const web = useWebApp('webrouted');
const ADMIN_BOARD = '/admin/queues';
const READ_ONLY_BOARD = '/queues';
const PLANTED_JOB = 'planted-job';
const PLANTED_SCHEDULER = 'planted-scheduler';
// One body for every action: each takes the fields it knows (add, concurrency, priority, delay, update-data).
const BODY = JSON.stringify({
  name: 'planted',
  data: { planted: false },
  options: {},
  concurrency: 1,
  priority: 1,
  delay: 1,
});

let registry: QueueRegistry;
let connection: ReturnType<typeof createRedisConnection>;
let agent: http.Agent;
let port = 0;

interface Answer {
  status: number;
  body: string;
}

/** A request over a real socket, its path sent byte for byte (no client normalizes it first). */
function send(method: HTTPMethods, path: string, headers: Record<string, string>): Promise<Answer> {
  const unsafe = method !== 'GET' && method !== 'HEAD';
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: unsafe ? { ...headers, 'content-type': 'application/json' } : headers,
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body }));
      },
    );
    request.on('error', reject);
    request.end(unsafe ? BODY : undefined);
  });
}

/** A route's pattern with its parameters naming the ingest queue, the planted job and scheduler, a file. */
function concrete(route: ServedRoute): string {
  return (
    route.url
      .replace(':queueName', QUEUE.ingest)
      .replace(':jobId', PLANTED_JOB)
      .replace(':schedulerId', PLANTED_SCHEDULER)
      .replace(':queueStatus', route.url.includes('/retry/') ? 'failed' : 'delayed')
      // A file bull-board's static route does serve.
      .replace('*', 'favicon.ico')
  );
}

/** Runs `each` over `items`, `width` at a time (the agent's sockets). */
async function inParallel<T>(items: readonly T[], width: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await each(items[next++]!);
  };
  await Promise.all(Array.from({ length: width }, lane));
}

const under = (url: string, root: string) => url === root || url.startsWith(`${root}/`);
const unsafe = (route: ServedRoute) => !['GET', 'HEAD'].includes(route.method);

/** Everything about the queues an action on the board could change. */
async function queueState() {
  const ingest = registry.get(QUEUE.ingest);
  const job = await ingest.getJob(PLANTED_JOB);
  return {
    paused: await Promise.all(registry.all().map(async (q) => [q.name, await q.isPaused()])),
    counts: await ingest.getJobCounts(),
    job: job && { state: await job.getState(), data: job.data, priority: job.priority, delay: job.delay },
    schedulers: await ingest.getJobSchedulersCount(),
    concurrency: await ingest.getGlobalConcurrency(),
    rateLimited: (await ingest.getRateLimitTtl()) > 0,
  };
}

beforeAll(async () => {
  connection = createRedisConnection(TEST_REDIS_URL);
  registry = new QueueRegistry(web.prefix, connection, () => connection);
  agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  await web.app.listen({ port: 0, host: '127.0.0.1' });
  port = (web.app.server.address() as AddressInfo).port;
  // No ingest worker runs here: the planted job and the scheduler's next run stay delayed until an action moves them.
  const ingest = registry.untyped(QUEUE.ingest);
  await ingest.add('ingest-window', { planted: true }, { jobId: PLANTED_JOB, delay: 86_400_000 });
  await ingest.upsertJobScheduler(PLANTED_SCHEDULER, { pattern: '0 0 1 1 *' }, { name: 'ingest-window', data: {} });
});

afterAll(async () => {
  agent?.destroy();
  await registry?.untyped(QUEUE.ingest).obliterate({ force: true });
  await registry?.close();
  connection?.disconnect();
});

describe('roles decided on the route the request reaches', () => {
  it('reads the board routes from the app: both boards, with their actions', () => {
    const routes = servedRoutes(web.app);
    const admin = routes.filter((r) => under(r.url, ADMIN_BOARD));
    expect(admin.filter(unsafe).length).toBeGreaterThanOrEqual(20);
    expect(admin).toContainEqual({ method: 'PUT', url: '/admin/queues/api/queues/:queueName/pause' });
    expect(admin).toContainEqual({ method: 'PUT', url: '/admin/queues/api/queues/:queueName/clean/:queueStatus' });
    expect(routes.filter((r) => under(r.url, READ_ONLY_BOARD) && unsafe(r)).length).toBe(admin.filter(unsafe).length);
  });

  it('refuses the admin board and every board action to the accountants under any spelling of the path, by bearer or session', async () => {
    const session = await signIn(web.app, TOKEN);
    const as = {
      bearer: { authorization: `Bearer ${TOKEN}` },
      session: { cookie: session.cookie, 'x-csrf-token': session.csrf },
    };
    // The admin board is refused whole; the read-only board answers reads, so only its actions are tried.
    const routes = servedRoutes(web.app).filter(
      (r) => under(r.url, ADMIN_BOARD) || (under(r.url, READ_ONLY_BOARD) && unsafe(r)),
    );
    const before = await queueState();
    const granted: string[] = [];
    const odd: string[] = [];
    const tries = routes.flatMap((route) =>
      spellings(concrete(route)).flatMap((path) =>
        Object.entries(as).map(([who, headers]) => ({ route, path, who, headers })),
      ),
    );
    await inParallel(tries, 8, async ({ route, path, who, headers }) => {
      const answer = await send(route.method, path, headers);
      const seen = `${route.method} ${path} (${who}) -> ${answer.status}`;
      if (answer.status < 300) granted.push(seen);
      else if (answer.status >= 500) odd.push(`${seen} ${answer.body.slice(0, 120)}`);
    });
    expect(tries.length).toBeGreaterThan(2000);
    expect(granted).toEqual([]);
    expect(odd).toEqual([]);
    expect(await queueState()).toEqual(before);
    expect(before.job?.state).toBe('delayed');
    expect(before.schedulers).toBe(1);
  }, 180_000);

  it('lets the admin reach every board route on its canonical path, and pause and resume the queue', async () => {
    const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };
    // The destructive actions last, so the others still find the job and scheduler they name.
    const last = ['obliterate', 'empty', 'clean', 'remove'];
    const routes = servedRoutes(web.app)
      .filter((r) => under(r.url, ADMIN_BOARD) && r.method !== 'HEAD')
      .sort((a, b) => Number(last.some((w) => a.url.includes(w))) - Number(last.some((w) => b.url.includes(w))));
    const refused: string[] = [];
    for (const route of routes) {
      const answer = await send(route.method, concrete(route), bearer);
      const unrouted = answer.status === 404 && answer.body.includes(`Route ${route.method}:`);
      if (answer.status === 401 || answer.status === 403 || unrouted) {
        refused.push(`${route.method} ${concrete(route)} -> ${answer.status} ${answer.body.slice(0, 80)}`);
      }
    }
    expect(refused).toEqual([]);

    const admin = await signIn(web.app, ADMIN_TOKEN);
    const ingest = registry.get(QUEUE.ingest);
    // A session without a form token: bull-board's own script sends none.
    const paused = await send('PUT', `${ADMIN_BOARD}/api/queues/ingest/pause`, { cookie: admin.cookie });
    expect(paused.status).toBe(200);
    expect(await ingest.isPaused()).toBe(true);
    const resumed = await send('PUT', `${ADMIN_BOARD}/api/queues/ingest/resume`, bearer);
    expect(resumed.status).toBe(200);
    expect(await ingest.isPaused()).toBe(false);
  });
});
