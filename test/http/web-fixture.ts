import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { Worker } from 'bullmq';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';

import type { ExportQueue } from '../../jobs/composition/export-queue.ts';
import type { FilingQueue } from '../../jobs/composition/filing-queue.ts';
import { QueueRegistry } from '../../jobs/composition/queue-registry.ts';
import { createExportWorker, createFilingWorker, type FilingWorker } from '../../jobs/composition/workers.ts';
import { QUEUE } from '../../jobs/definitions.ts';
import { createRedisConnection } from '../../src/app/redis-connection.ts';
import { loadConfig } from '../../src/config/config.ts';
import { buildWebApp } from '../../src/http/web-app.ts';
import { type TestDatabase, useTestDatabase } from '../helpers/test-database.ts';
import { randomPrefix, TEST_REDIS_URL } from '../helpers/test-redis.ts';

export const TOKEN = 'test-token-0123456789abcdef0123456789abcdef';
export const ADMIN_TOKEN = 'admin-token-fedcba9876543210fedcba9876543210';

export interface WebFixture {
  readonly db: TestDatabase;
  readonly app: FastifyInstance;
  readonly queue: ExportQueue;
  readonly filingQueue: FilingQueue;
  readonly exportDir: string;
  readonly prefix: string;
}

/**
 * The accountants' page wired as `ledgerline web` wires it, on a database and a BullMQ prefix of
 * its own, with an export worker and a filing worker (its walks in threads) running in the test
 * process. A tax years view waits up to `filingWaitMs` (default: a minute, so a test's first view
 * shows the figures) for the figures it asked for.
 */
export function useWebApp(
  label: string,
  options: {
    trustProxy?: boolean | number | readonly string[];
    logger?: FastifyBaseLogger;
    filingWaitMs?: number;
    filingWorker?: boolean;
  } = {},
): WebFixture {
  const db = useTestDatabase(label);
  const prefix = randomPrefix(label);
  let connection: Redis;
  let app: FastifyInstance | undefined;
  let queues: QueueRegistry | undefined;
  let queue: ExportQueue | undefined;
  let worker: Worker | undefined;
  let filing: FilingWorker | undefined;
  let filingQueue: FilingQueue | undefined;
  let exportDir = '';
  let pool: pg.Pool | undefined;
  beforeAll(async () => {
    connection = createRedisConnection(TEST_REDIS_URL);
    exportDir = await mkdtemp(path.join(tmpdir(), `ll-${label}-`));
    queues = new QueueRegistry(prefix, connection, () => connection);
    queue = queues.get(QUEUE.export);
    const config = loadConfig({ DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, NODE_ENV: 'test' });
    worker = createExportWorker(
      { prefix, config, connection: () => connection },
      { databaseUrl: db.url, exportDir, prisma: db.prisma },
    );
    filingQueue = queues.get(QUEUE.filing);
    if (options.filingWorker !== false) filing = createFilingWorker({ prefix, config, connection: () => connection });
    app = await buildWebApp({
      tokens: { accountant: TOKEN, admin: ADMIN_TOKEN },
      exportDir,
      databaseUrl: db.url,
      pool: (pool = new pg.Pool({ connectionString: db.url, max: 2 })),
      prisma: db.prisma,
      exportQueue: queue,
      filingQueue,
      filingWaitMs: options.filingWaitMs ?? 60_000,
      redis: connection,
      prefix,
      boardQueues: queues.all(),
      trustProxy: options.trustProxy ?? false,
      logger: options.logger,
    });
  });
  afterAll(async () => {
    await app?.close();
    await worker?.close();
    await filing?.close();
    await queue?.obliterate({ force: true });
    await filingQueue?.obliterate({ force: true });
    await queues?.close();
    await pool?.end();
    connection?.disconnect();
    if (exportDir) await rm(exportDir, { recursive: true, force: true });
  });
  return {
    db,
    get app() {
      return app!;
    },
    get queue() {
      return queue!;
    },
    get filingQueue() {
      return filingQueue!;
    },
    get exportDir() {
      return exportDir;
    },
    prefix,
  };
}

/** The `name=value` pairs of a response's Set-Cookie headers. */
export function cookiesOf(setCookie: string | string[] | undefined): Map<string, string> {
  const lines = setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie];
  return new Map(lines.map((line) => line.split(';')[0]!.split('=') as [string, string]));
}

export const CSRF_FIELD = /name="_csrf" value="([^"]+)"/;

export interface SignedIn {
  /** The Cookie header: the session and the CSRF secret. */
  cookie: string;
  /** The form token that goes with the CSRF secret. */
  csrf: string;
  setCookie: string;
}

/** Signs in as a browser does: the sign-in page (CSRF cookie and token), then its form. */
export async function signIn(
  app: FastifyInstance,
  token: string,
  extra: { remoteAddress?: string; headers?: Record<string, string> } = {},
): Promise<SignedIn> {
  const page = await app.inject({ method: 'GET', url: '/login', ...extra });
  const csrfCookie = cookiesOf(page.headers['set-cookie']).get('ll_csrf');
  const csrf = CSRF_FIELD.exec(page.body)?.[1];
  if (!csrfCookie || !csrf) throw new Error(`the sign-in page set no CSRF cookie or token (${page.statusCode})`);
  const response = await app.inject({
    method: 'POST',
    url: '/login',
    payload: new URLSearchParams({ token, _csrf: csrf }).toString(),
    ...extra,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `ll_csrf=${csrfCookie}`, ...extra.headers },
  });
  if (response.statusCode !== 303) throw new Error(`sign-in answered ${response.statusCode}: ${response.body}`);
  const setCookie = String(response.headers['set-cookie']);
  const session = cookiesOf(response.headers['set-cookie']).get('ll_session');
  return { cookie: `ll_csrf=${csrfCookie}; ll_session=${session}`, csrf, setCookie };
}
