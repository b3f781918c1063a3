import type pg from 'pg';

import type { RulesMethod } from '../../src/accounting/gains/gains-method.ts';
import type { Config } from '../../src/config/config.ts';
import type { ValuationSettings } from '../../src/export/export-request.ts';
import { hasFiling } from '../../src/export/filing/filing-figures-store.ts';
import { filingInputVersion } from '../../src/export/filing/filing-input-version.ts';
import { JOB, QUEUE, type Queues } from '../definitions.ts';
import { ensureJob } from '../ensure-job.ts';
import { type FilingJob, filingJobId, type FilingQueue } from '../payloads/filing-job.ts';
import type { Runtime } from '../runtime.ts';

export type { FilingJob, FilingQueue };

/** Where the computation of a version stands, as the page tells it. */
export interface FilingRequestState {
  readonly jobId: string;
  /** The previous try of this version failed, and why (it is tried again now). */
  readonly failedReason?: string | undefined;
}

/**
 * Asks for a method's figures of an account at an input version: one job per version
 * (filing-job.ts), so every view waiting for the same figures shares its computation. A job of that
 * id waiting or running is left as it is; a finished one is replaced (its figures are not stored
 * under the version the page read: they were dropped, or its try failed, whose reason is returned).
 */
export async function requestFilingFigures(queue: FilingQueue, job: FilingJob): Promise<FilingRequestState> {
  const jobId = filingJobId(job);
  const previous = await queue.getJob(jobId);
  const failedReason =
    previous !== undefined && (await previous.getState()) === 'failed' ? previous.failedReason : undefined;
  await ensureJob(queue, JOB.filingFigures, jobId, job, { whenFinished: 'replace' });
  return { jobId, failedReason };
}

/** The filing queue of the process (the web page adds its jobs). */
export function filingQueueOf(runtime: Pick<Runtime, 'queues'>): FilingQueue {
  return runtime.queues.get(QUEUE.filing);
}

const RULES_METHODS: readonly RulesMethod[] = ['uk', 'de'];

/**
 * The account's figures of both methods at the inputs' version now, for those not stored: what an
 * account's nightly sync asks once its windows are done (after-sync.ts), and the page once an
 * accountant supplied or withdrew a figure (supply-routes.ts), so the next view finds them. How
 * many computations were asked for.
 */
export async function requestCurrentFilings(
  queue: FilingQueue,
  pool: pg.Pool,
  accountId: string,
  valuation: ValuationSettings | undefined,
  now: number = Date.now(),
): Promise<number> {
  let asked = 0;
  for (const method of RULES_METHODS) {
    const inputVersion = await filingInputVersion(pool, accountId, method, valuation, now);
    if (await hasFiling(pool, accountId, method, inputVersion)) continue;
    await requestFilingFigures(queue, { accountId, method, inputVersion });
    asked++;
  }
  return asked;
}

/** requestCurrentFilings on a runtime's filing queue. */
export function requestFilingFiguresNow(
  runtime: { config: Pick<Config, 'valuation'>; pool: pg.Pool; queues: Queues },
  accountId: string,
): Promise<number> {
  return requestCurrentFilings(filingQueueOf(runtime), runtime.pool, accountId, runtime.config.valuation);
}
