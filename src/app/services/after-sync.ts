import { pruneInputChanges } from '../../accounting/gains/gains-change-prune.ts';
import { refreshTradePrices } from '../../accounting/prices/refresh-trade-prices.ts';
import type { AppRuntime } from '../app-runtime.ts';
import { enqueueMonthlyExports } from './enqueue-monthly-exports.ts';

/**
 * What follows an account's nightly sync, once all of its windows finished.
 * Each step enqueues its own job, so a failing step does not undo the sync.
 */
export type AfterSyncStep = (runtime: AppRuntime, accountId: string) => Promise<void>;

/** The configured reports of last month (deterministic job ids: once a month, however often it runs). */
const monthlyExports: AfterSyncStep = async (runtime) => {
  const settings = runtime.config.monthlyExports;
  if (settings.reports.length === 0) return;
  await enqueueMonthlyExports({ jobs: runtime.jobs, prisma: runtime.prisma, settings });
};

/** The checks over what was just synced, re-counting the recent windows against the exchange. */
const reconcile: AfterSyncStep = async (runtime, accountId) => {
  await runtime.jobs.enqueueReconciliation(accountId, { recount: 'recent' });
};

/**
 * The prices implied by the account's trades (the `price` table's `trade` points), refreshed here,
 * in this job rather than a job of its own, so that the monthly exports enqueued next value with
 * them. Idempotent: a retried sync-finish job rewrites nothing. `ledgerline sync` and `backfill`
 * run it too once their windows are done.
 */
export const refreshAccountTradePrices: AfterSyncStep = async (runtime, accountId) => {
  const client = await runtime.pool.connect();
  try {
    await refreshTradePrices(client, accountId);
  } finally {
    client.release();
  }
};

/**
 * The gains change log that the night's writes grew, merged between the account's checkpoint
 * instants (gains-change-prune.ts): an account never exported keeps one row, not one per page.
 * Before the monthly exports are enqueued, so that their walks count over the merged rows.
 */
const pruneGainsChangeLog: AfterSyncStep = async (runtime, accountId) => {
  const client = await runtime.pool.connect();
  try {
    await pruneInputChanges(client, accountId);
  } finally {
    client.release();
  }
};

/**
 * The tax years page's figures for what the night changed, computed now by the worker (one job per
 * method and input version) rather than when an accountant first opens the page. After the trade
 * prices are refreshed (an input of the figures).
 */
const filingFigures: AfterSyncStep = async (runtime, accountId) => {
  await runtime.jobs.enqueueFilingFigures(accountId);
};

export const AFTER_SYNC_STEPS: AfterSyncStep[] = [
  reconcile,
  refreshAccountTradePrices,
  pruneGainsChangeLog,
  filingFigures,
  monthlyExports,
];
