import { Queue, type Worker } from 'bullmq';
import { createRedisConnection } from '../../jobs/connection.ts';
import { DEFAULT_PREFIX, QUEUE } from '../../jobs/definitions.ts';
import { createExportQueue } from '../../jobs/export/export-queue.ts';
import { createExportWorker } from '../../jobs/export/export-worker.ts';
import type { Config } from '../config/config.ts';
import { createPrisma } from '../db/prisma.ts';
import { logger } from '../logging/logger.ts';
import { buildWebApp } from './web-app.ts';
import { requireWebToken } from './web-auth.ts';

/**
 * `ledgerline web`: the accountants' page and bull-board, plus (unless told not to) an export
 * worker, so requested reports get written even before the full worker is deployed. Stops
 * cleanly on SIGINT/SIGTERM: no new requests, the running export finishes.
 */
export async function startWeb(config: Config, options: { worker: boolean }): Promise<void> {
  const token = requireWebToken(config);
  const log = logger('web');
  const connection = createRedisConnection(config.redisUrl);
  const prisma = createPrisma(config.databaseUrl);
  const exportQueue = createExportQueue(connection, DEFAULT_PREFIX);
  const others = Object.values(QUEUE)
    .filter((name) => name !== QUEUE.export)
    .map((name) => new Queue(name, { connection, prefix: DEFAULT_PREFIX }));
  let worker: Worker | undefined;
  if (options.worker) {
    worker = createExportWorker({
      connection,
      deps: { databaseUrl: config.databaseUrl, exportDir: config.exportDir, prisma },
    });
    worker.on('failed', (job, error) => log.warn({ jobId: job?.id, err: error.message }, 'export failed'));
  }
  const app = await buildWebApp({
    token,
    exportDir: config.exportDir,
    databaseUrl: config.databaseUrl,
    prisma,
    exportQueue,
    redis: connection,
    boardQueues: [exportQueue, ...others],
    secureCookies: config.env === 'production',
    logger: log,
  });
  await app.listen({ host: config.web.host, port: config.web.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.web.port;
  console.log(`ledgerline web listening on http://${config.web.host}:${port} (exports in ${config.exportDir})`);

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await app.close();
  await worker?.close();
  await Promise.all([exportQueue.close(), ...others.map((q) => q.close())]);
  await prisma.$disconnect();
  connection.disconnect();
}
