import type { Worker } from 'bullmq';

import { createRuntime } from '../../jobs/composition/create-runtime.ts';
import { exportQueueOf } from '../../jobs/composition/export-queue.ts';
import { filingQueueOf } from '../../jobs/composition/filing-queue.ts';
import {
  createExportWorker,
  createFilingWorker,
  exportDeps,
  type FilingWorker,
} from '../../jobs/composition/workers.ts';
import type { Config } from '../config/config.ts';
import { ConfigError } from '../errors/index.ts';
import { logger } from '../logging/logger.ts';
import { buildWebApp } from './web-app.ts';
import { requireWebTokens } from './web-auth.ts';

/**
 * `ledgerline web`: the accountants' page and bull-board, plus (unless told not to) an export
 * worker, so requested reports get written even before the full worker is deployed. Stops
 * cleanly on SIGINT/SIGTERM: no new requests, the running export finishes.
 */
export async function startWeb(config: Config, options: { worker: boolean }): Promise<void> {
  const tokens = requireWebTokens(config);
  const log = logger('web');
  // The coverage timeline's queries use the runtime's pool; two connections are plenty for a page.
  const runtime = createRuntime(config, { poolSize: 2 });
  const { prisma } = runtime;
  const exportQueue = exportQueueOf(runtime);
  let worker: Worker | undefined;
  // The tax years page's figures: walked in threads of their own (createFilingWorker), never in
  // this process's event loop, which keeps answering the page meanwhile.
  let filing: FilingWorker | undefined;
  if (options.worker) {
    worker = createExportWorker(runtime, exportDeps(runtime));
    worker.on('failed', (job, error) => log.warn({ jobId: job?.id, err: error.message }, 'export failed'));
    filing = createFilingWorker(runtime, { warmFilingThreads: true });
    filing.worker.on('failed', (job, error) =>
      log.warn({ jobId: job?.id, err: error.message }, 'filing figures failed'),
    );
  }
  const app = await buildWebApp({
    tokens,
    exportDir: config.exportDir,
    databaseUrl: config.databaseUrl,
    pool: runtime.pool,
    prisma,
    exportQueue,
    filingQueue: filingQueueOf(runtime),
    redis: runtime.redis,
    prefix: runtime.prefix,
    boardQueues: runtime.queues.all(),
    trustProxy: config.web.trustProxy,
    valuation: config.valuation,
    logger: log,
  });
  try {
    await app.listen({ host: config.web.host, port: config.web.port });
  } catch (error) {
    // A port another program holds: one line naming the setting to change, not Node's stack.
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      await app.close();
      await worker?.close();
      await filing?.close();
      await runtime.close();
      throw new ConfigError(
        'WEB_PORT',
        `port ${config.web.port} on ${config.web.host} is already in use by another program: set WEB_PORT (or WEB_HOST) to a free one`,
      );
    }
    throw error;
  }
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
  await filing?.close();
  await runtime.close();
}
