import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { Worker } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';

import { QUEUE } from '../../jobs/definitions.ts';
import type { ExportQueue } from '../../jobs/export/export-queue.ts';
import { createExportWorker } from '../../jobs/export/export-worker.ts';
import { QueueRegistry } from '../../src/app/queue-registry.ts';
import { createRedisConnection } from '../../src/app/redis-connection.ts';
import { buildWebApp } from '../../src/http/web-app.ts';
import { type TestDatabase, useTestDatabase } from '../helpers/test-database.ts';
import { randomPrefix, TEST_REDIS_URL } from '../helpers/test-redis.ts';

export const TOKEN = 'test-token-0123456789abcdef0123456789abcdef';

export interface WebFixture {
  readonly db: TestDatabase;
  readonly app: FastifyInstance;
  readonly queue: ExportQueue;
  readonly exportDir: string;
  readonly prefix: string;
}

/**
 * The accountants' page wired as `ledgerline web` wires it, on a database and a BullMQ prefix of
 * its own, with an export worker running in the test process.
 */
export function useWebApp(label: string): WebFixture {
  const db = useTestDatabase(label);
  const prefix = randomPrefix(label);
  let connection: Redis;
  let app: FastifyInstance | undefined;
  let queues: QueueRegistry | undefined;
  let queue: ExportQueue | undefined;
  let worker: Worker | undefined;
  let exportDir = '';
  beforeAll(async () => {
    connection = createRedisConnection(TEST_REDIS_URL);
    exportDir = await mkdtemp(path.join(tmpdir(), `ll-${label}-`));
    queues = new QueueRegistry(prefix, connection, () => connection);
    queue = queues.get(QUEUE.export);
    worker = createExportWorker({
      connection,
      prefix,
      deps: { databaseUrl: db.url, exportDir, prisma: db.prisma },
    });
    app = await buildWebApp({
      token: TOKEN,
      exportDir,
      databaseUrl: db.url,
      prisma: db.prisma,
      exportQueue: queue,
      redis: connection,
      boardQueues: queues.all(),
      secureCookies: false,
    });
  });
  afterAll(async () => {
    await app?.close();
    await worker?.close();
    await queue?.obliterate({ force: true });
    await queues?.close();
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
    get exportDir() {
      return exportDir;
    },
    prefix,
  };
}
