import pg from 'pg';

import type { RulesMethod } from '../../accounting/gains/gains-method.ts';
import { PermanentError } from '../../errors/index.ts';
import type { ValuationSettings } from '../export-request.ts';
import { hasFiling, saveFiling } from './filing-figures-store.ts';
import { filingInputVersion } from './filing-input-version.ts';
import { filingSummary } from './filing-summary.ts';

/** What one computation is asked (plain data: it crosses to a thread). */
export interface FilingComputation {
  readonly databaseUrl: string;
  readonly accountId: string;
  readonly method: RulesMethod;
  readonly valuation?: ValuationSettings | undefined;
}

export interface FilingComputed {
  /** The version the figures are stored under (read before the walk). */
  readonly inputVersion: string;
  /** False when an input changed during the walk: the figures are stored, but as of an older version. */
  readonly current: boolean;
  /** True when figures of that version were already stored: nothing walked. */
  readonly skipped: boolean;
  readonly computeMs: number;
}

/** The account of a computation is gone (removed since the job was queued): nothing to compute, ever. */
export class FilingAccountMissingError extends PermanentError {
  constructor(accountId: string) {
    super(`accountId: no account with id ${accountId}`, { code: 'FILING_ACCOUNT_MISSING' });
  }
}

/**
 * Computes a method's filing figures of an account and stores them under their input version.
 *
 * The version is read before the walk and again after it: the walk reads in a snapshot of its own
 * taken between the two reads, and a version only ever changes to one not seen before
 * (filing-input-version.ts), so equal reads mean the walk saw exactly the inputs of that version.
 * When they differ, the figures are still stored under the first (the page shows them as the
 * last figures, as of their time, never as current: no later read returns that version again).
 */
export async function computeFilingFigures(
  job: FilingComputation,
  pool: pg.Pool,
  now: () => number = Date.now,
): Promise<FilingComputed> {
  const { rows } = await pool.query<{ name: string }>('SELECT name FROM account WHERE id = $1::uuid', [job.accountId]);
  const accountName = rows[0]?.name;
  if (accountName === undefined) throw new FilingAccountMissingError(job.accountId);
  const asOfMs = now();
  const before = await filingInputVersion(pool, job.accountId, job.method, job.valuation, asOfMs);
  if (await hasFiling(pool, job.accountId, job.method, before)) {
    return { inputVersion: before, current: true, skipped: true, computeMs: 0 };
  }
  const started = performance.now();
  const summary = await filingSummary(
    job.databaseUrl,
    { accountId: job.accountId, accountName, valuation: job.valuation, now: asOfMs },
    job.method,
  );
  const computeMs = Math.round(performance.now() - started);
  const after = await filingInputVersion(pool, job.accountId, job.method, job.valuation, asOfMs);
  await saveFiling(pool, job.accountId, job.method, { inputVersion: before, asOfMs, computeMs, summary });
  return { inputVersion: before, current: before === after, skipped: false, computeMs };
}
