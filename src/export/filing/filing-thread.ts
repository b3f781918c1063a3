import { parentPort } from 'node:worker_threads';

import pg from 'pg';

import { createPool } from '../../db/pg-connections.ts';
import { createRootLogger, setRootLogger } from '../../logging/logger.ts';
import { computeFilingFigures, type FilingComputation } from './compute-filing-figures.ts';
import type { FilingReply, FilingRequest } from './filing-threads.ts';

/**
 * One thread of filing computations (filing-threads.ts): each message is one method's figures of
 * one account, walked and stored here, off the event loop of the process that asked (the web
 * process's requests, a worker's lock renewals). Its pool of one connection per database stores
 * the figures; the walk has a client of its own.
 */
const port = parentPort!;
setRootLogger(createRootLogger({ level: 'warn' }));
const pools = new Map<string, pg.Pool>();

function poolFor(job: FilingComputation): pg.Pool {
  let pool = pools.get(job.databaseUrl);
  if (pool === undefined) {
    pool = createPool({ connectionString: job.databaseUrl, max: 1, application_name: 'ledgerline-filing' });
    pools.set(job.databaseUrl, pool);
  }
  return pool;
}

port.on('message', (request: FilingRequest) => {
  const reply = (message: FilingReply) => port.postMessage(message);
  computeFilingFigures(request.job, poolFor(request.job)).then(
    (computed) => reply({ id: request.id, kind: 'computed', computed }),
    (error: unknown) =>
      reply({
        id: request.id,
        kind: 'failed',
        name: error instanceof Error ? error.name : 'Error',
        message: error instanceof Error ? error.message : String(error),
        code: (error as { code?: unknown } | null)?.code?.toString(),
        retryable: (error as { retryable?: unknown } | null)?.retryable !== false,
      }),
  );
});
