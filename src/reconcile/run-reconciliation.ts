import type pg from 'pg';

import { AccountNotFoundError } from '../accounts/account-errors.ts';
import { toMs } from '../db/sql-time.ts';
import type { ExchangeClient } from '../exchange/index.ts';
import { RUNNING_BALANCE_STREAM, type Stream, WALLET_LEDGERS } from '../streams/registry.ts';
import { planAnchors } from './checks/balance-anchors.ts';
import { checkBalanceContinuity } from './checks/balance-check.ts';
import { planChainScope } from './checks/balance-checkpoint.ts';
import { checkWindowCounts } from './checks/count-check.ts';
import { checkCoverage } from './checks/coverage-check.ts';
import { checkFuturesLedger } from './checks/futures-ledger-check.ts';
import { checkPagingStuck, findCrowdedInstants } from './checks/paging-check.ts';
import { checkWalletLedger } from './checks/wallet-ledger-check.ts';
import { formatReport } from './format-report.ts';
import { FreshReads } from './fresh-reads.ts';
import { FRESH_READ_HOURS } from './read-marks.ts';
import type { RecountMode } from './recount-mode.ts';
import type { CheckName, CheckResult, ReconciliationReport } from './report-types.ts';
import { SupersededRunError } from './superseded-run-error.ts';

/** What a reconciliation needs of the process's runtime (jobs/runtime.ts provides it). */
export interface ReconcileDeps {
  pool: pg.Pool;
  clients: { forAccount(accountId: string): Promise<ExchangeClient> };
  /** The runtime's settings: RECONCILE_FRESH_READ_HOURS (default FRESH_READ_HOURS). */
  config?: { reconcileFreshReadHours: number };
}

export interface ReconcileOptions {
  accountId: string;
  /** How much to re-read from the exchange for the window counts (default `recent`). */
  recount?: RecountMode;
  /** The page sizes the paging-stuck check judges by (default: the ones ingestion asks for). */
  pageLimits?: Partial<Record<Stream, number>>;
  /**
   * Check the whole stored history (`reconcile --full`, the scheduled full check) rather than what
   * was stored since the verified balance chains' checkpoints (balance-checkpoint.ts).
   */
  full?: boolean;
  /**
   * A window whose read started at most this many hours ago is re-counted from that read's marks
   * (read-marks.ts). Default: the runtime's RECONCILE_FRESH_READ_HOURS; a full check asks every window.
   */
  freshReadHours?: number;
  /** Told as each check starts (`result` undefined) and ends: the CLI's progress. */
  onCheck?: (name: CheckName, index: number, total: number, result?: CheckResult) => void;
  /**
   * Stores the report instead of a plain insert: a queued run's (jobs/reconcile/run-fence.ts) does it
   * with its run row in one transaction that checks the run still holds its claim.
   */
  store?: ReportStore;
}

/** A report as computed, before it has a row. */
export type UnsavedReport = Omit<ReconciliationReport, 'id'>;

/** Where a report's row may be written: the pool, or a transaction's client. */
export type ReportDb = Pick<pg.ClientBase, 'query'>;

/**
 * Stores a report by calling `insert` (on the store's own connection or transaction, with the run's
 * key) and returns the new row's id, or undefined when the run may no longer write anything (another
 * run of the same job took it over): runReconciliation then throws SupersededRunError.
 */
export type ReportStore = (
  report: UnsavedReport,
  insert: (db: ReportDb, runKey: string | null) => Promise<string>,
) => Promise<string | undefined>;

const CHECK_ORDER: readonly CheckName[] = [
  'coverage',
  'balance-continuity',
  'paging-stuck',
  'window-counts',
  'futures-ledger',
  // One check per wallet ledger of the registry (margin, P2P).
  ...WALLET_LEDGERS,
];

/**
 * Runs every check over one account's stored history, writes the report row
 * and returns the report. A check that cannot finish (the exchange or the
 * database failing under it) is reported as failed with its error; the other
 * checks still run. An unknown account is an AccountNotFoundError and writes nothing.
 */
export async function runReconciliation(deps: ReconcileDeps, options: ReconcileOptions): Promise<ReconciliationReport> {
  const { pool } = deps;
  const { accountId } = options;
  const recount = options.recount ?? 'recent';
  const account = UUID.test(accountId)
    ? await pool.query<{ name: string }>(`SELECT name FROM account WHERE id = $1`, [accountId])
    : { rows: [] };
  if (account.rows.length === 0) throw new AccountNotFoundError(accountId);
  const accountName = account.rows[0]!.name;
  const client = () => deps.clients.forAccount(accountId);
  const startedAt = new Date();

  let finished = 0;
  const guarded = async (name: CheckName, run: () => Promise<CheckResult>): Promise<CheckResult> => {
    // The checks run side by side: told with how many have finished, so that a progress bar only moves forward.
    options.onCheck?.(name, finished, CHECK_ORDER.length);
    let result: CheckResult;
    try {
      result = await run();
    } catch (caught) {
      result = failedCheck(name, recount, caught);
    }
    options.onCheck?.(name, finished++, CHECK_ORDER.length, result);
    return result;
  };

  // What checks 2 and 3 will ask the exchange, found in the database first, so that the window
  // re-counts (check 4) can answer what their own re-reads cover: those run first, and the other
  // checks then ask the exchange only for the rest (fresh-reads.ts). A query that fails here
  // fails the check that needs it, as before; the re-counts then simply answer nothing.
  const online = recount !== 'none';
  // The scheduled full check (and `reconcile --full`) asks the exchange for every window again.
  const freshReadMs = options.full
    ? 0
    : (options.freshReadHours ?? deps.config?.reconcileFreshReadHours ?? FRESH_READ_HOURS) * HOUR;
  // The chain's scope first: a nightly run reads only what followed the verified chains.
  const scope = await planChainScope(pool, accountId, options.full ?? false);
  const touched = scope.full ? undefined : await touchedSince(pool, accountId, scope.watermarkBefore);
  const crowded = findCrowdedInstants(pool, accountId, options.pageLimits, touched);
  const anchors = online ? planAnchors(pool, accountId, scope) : undefined;
  const [crowdedFound, anchorsPlanned] = await Promise.allSettled([crowded, anchors]);
  const fresh =
    online && crowdedFound.status === 'fulfilled' && anchorsPlanned.status === 'fulfilled'
      ? new FreshReads(
          anchorsPlanned.value?.queries ?? [],
          crowdedFound.value.filter((c) => c.stream === RUNNING_BALANCE_STREAM).map((c) => c.ts),
        )
      : undefined;

  // Side by side: the database work of each, and the re-counts of streams with budgets of their
  // own; checks 2 and 3 wait for the spot re-reads before they ask the exchange anything.
  const [[coverage, counts, balance, paging, futures], wallets] = await Promise.all([
    Promise.all([
      guarded('coverage', () => checkCoverage(pool, accountId, startedAt)),
      guarded('window-counts', () =>
        checkWindowCounts({ pool, accountId, recount, client, fresh, full: scope.full, freshReadMs }).finally(() =>
          fresh?.finish(),
        ),
      ),
      guarded('balance-continuity', async () =>
        checkBalanceContinuity(pool, accountId, scope, anchors ? { plan: await anchors, client, fresh } : undefined),
      ),
      guarded('paging-stuck', async () =>
        checkPagingStuck({ pool, accountId, crowded: await crowded, client: online ? client : null, fresh }),
      ),
      guarded('futures-ledger', () => checkFuturesLedger(pool, accountId)),
    ]),
    Promise.all(WALLET_LEDGERS.map((stream) => guarded(stream, () => checkWalletLedger(pool, accountId, stream)))),
  ]);
  // Reported in the order a reader follows: coverage, continuity, paging, counts, the futures and wallet ledgers.
  const checks: CheckResult[] = [coverage, balance, paging, counts, futures, ...wallets];

  const finishedAt = new Date();
  const passed = checks.every((c) => c.passed);
  const summary = formatReport({ accountName, recount, startedAt, finishedAt, full: scope.full }, checks);
  const report: UnsavedReport = {
    accountId,
    accountName,
    recount,
    full: scope.full,
    startedAt,
    finishedAt,
    passed,
    checks,
    summary,
  };
  const insert = async (db: ReportDb, runKey: string | null): Promise<string> => {
    const inserted = await db.query<{ id: string }>(
      `INSERT INTO reconciliation_report (id, account_id, recount, started_at, finished_at, passed, checks, summary, "full", run_key)
       VALUES (gen_random_uuid(), $1, $2::recount_mode, $3, $4, $5, $6::jsonb, $7, $8, $9) RETURNING id`,
      [accountId, recount, startedAt, finishedAt, passed, JSON.stringify(checks), summary, scope.full, runKey],
    );
    return inserted.rows[0]!.id;
  };
  const id = options.store ? await options.store(report, insert) : await insert(pool, null);
  if (id === undefined) throw new SupersededRunError(accountId);
  return { id, ...report };
}

/** Per stream, the earliest start of a window stored since `since` (the streams no window of which was stored are left out). */
async function touchedSince(pool: pg.Pool, accountId: string, since: Date): Promise<Map<Stream, number>> {
  const result = await pool.query<{ stream: Stream; start: string }>(
    `SELECT stream::text AS stream, ${toMs('min(window_start)')} AS start FROM sync_window
      WHERE account_id = $1 AND updated_at >= $2 GROUP BY stream`,
    [accountId, since],
  );
  return new Map(result.rows.map((r) => [r.stream, Number(r.start)]));
}

const HOUR = 3_600_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A check that threw: failed, carrying the error, claiming nothing else. */
function failedCheck(name: CheckName, recount: RecountMode, caught: unknown): CheckResult {
  const error = caught instanceof Error ? `${caught.name}: ${caught.message}` : String(caught);
  const empty = { passed: false, examined: 'could not finish', failures: [], notes: [], error };
  switch (name) {
    case 'coverage':
      return { ...empty, name, extents: [], findings: [] };
    case 'balance-continuity':
      return { ...empty, name, breaks: [], breakCount: 0 };
    case 'paging-stuck':
      return { ...empty, name, suspects: [] };
    case 'window-counts':
      return { ...empty, name, recount, windowsRecounted: 0, mismatches: [] };
    case 'futures-ledger':
      return { ...empty, name, wallets: [], unpaired: [], untiedPositions: 0 };
    default:
      return { ...empty, name, wallets: [], breaks: [], unpaired: [] };
  }
}
