import type pg from 'pg';

import type { RulesMethod } from '../../accounting/gains/gains-method.ts';
import type { FilingSummary } from './filing-summary.ts';

/** Figures stored under one input version (the table filing_figures). */
export interface StoredFiling {
  readonly inputVersion: string;
  /** The instant the walk read the history as it stood. */
  readonly asOfMs: number;
  readonly computedAtMs: number;
  readonly computeMs: number;
  /** Null: the account held no record then. */
  readonly summary: FilingSummary | null;
}

/** What a view needs: the figures of the current version if stored, else the newest stored. */
export interface StoredFilingLookup {
  readonly current?: StoredFiling | undefined;
  readonly newest?: StoredFiling | undefined;
}

/** How many versions of a method's figures are kept per account: the newest stays shown while the next is computed. */
export const KEPT_VERSIONS = 3;

interface Row {
  input_version: string;
  as_of_ms: string;
  computed_at_ms: string;
  compute_ms: number;
  years: FilingSummary | { empty: true };
}

const COLUMNS = `input_version, (extract(epoch FROM as_of) * 1000)::bigint::text AS as_of_ms,
  (extract(epoch FROM computed_at) * 1000)::bigint::text AS computed_at_ms, compute_ms, years`;

const toStored = (row: Row): StoredFiling => ({
  inputVersion: row.input_version,
  asOfMs: Number(row.as_of_ms),
  computedAtMs: Number(row.computed_at_ms),
  computeMs: row.compute_ms,
  summary: 'empty' in row.years ? null : row.years,
});

/**
 * The stored figures of `inputVersion` if any, else the newest stored (by the instant they
 * describe): one index read of at most two rows.
 */
export async function readFiling(
  db: pg.Pool | pg.ClientBase,
  accountId: string,
  method: RulesMethod,
  inputVersion: string,
): Promise<StoredFilingLookup> {
  const { rows } = await db.query<Row>(
    `(SELECT ${COLUMNS} FROM filing_figures WHERE account_id = $1::uuid AND method = $2 AND input_version = $3)
     UNION ALL
     (SELECT ${COLUMNS} FROM filing_figures WHERE account_id = $1::uuid AND method = $2
       ORDER BY as_of DESC, computed_at DESC LIMIT 1)`,
    [accountId, method, inputVersion],
  );
  const stored = rows.map(toStored);
  const current = stored.find((s) => s.inputVersion === inputVersion);
  return { current, newest: current ?? stored[0] };
}

/** Whether figures of that version are stored (the worker skips a job whose figures are). */
export async function hasFiling(
  db: pg.Pool | pg.ClientBase,
  accountId: string,
  method: RulesMethod,
  inputVersion: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    'SELECT 1 FROM filing_figures WHERE account_id = $1::uuid AND method = $2 AND input_version = $3',
    [accountId, method, inputVersion],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * Stores figures under their version (the same version twice: the same figures, kept as first
 * written) and drops all but the newest KEPT_VERSIONS of the account's method, in one statement.
 */
export async function saveFiling(
  db: pg.Pool | pg.ClientBase,
  accountId: string,
  method: RulesMethod,
  figures: Omit<StoredFiling, 'computedAtMs'>,
): Promise<void> {
  await db.query(
    `WITH saved AS (
       INSERT INTO filing_figures (account_id, method, input_version, as_of, compute_ms, years)
       VALUES ($1::uuid, $2, $3, timestamptz 'epoch' + $4::bigint * interval '1 millisecond', $5, $6::jsonb)
       ON CONFLICT (account_id, method, input_version) DO NOTHING
       RETURNING 1
     )
     DELETE FROM filing_figures f
      WHERE f.account_id = $1::uuid AND f.method = $2 AND f.input_version <> $3
        AND f.input_version NOT IN (
          SELECT input_version FROM filing_figures
           WHERE account_id = $1::uuid AND method = $2
           ORDER BY as_of DESC, computed_at DESC LIMIT ${KEPT_VERSIONS - 1})`,
    [
      accountId,
      method,
      figures.inputVersion,
      String(figures.asOfMs),
      figures.computeMs,
      JSON.stringify(figures.summary ?? { empty: true }),
    ],
  );
}
