import { Decimal } from 'decimal.js';
import type pg from 'pg';

import { idPrefix } from '../../booking/text-safe-ids.ts';
import { ValidationError } from '../../errors/index.ts';
import { readSuppliedCsv } from '../cost-basis/supplied-csv.ts';
import { type CurrencyRule, isoOr, suppliedCurrency } from '../cost-basis/supplied-currency.ts';
import {
  importSuppliedFile,
  type SuppliedImportResult,
  type SuppliedInput,
} from '../cost-basis/supplied-file-import.ts';
import { PROVENANCE_COLUMNS, type SuppliedProvenance } from '../cost-basis/supplied-provenance.ts';
import { type RowProblem, SuppliedRowsError } from '../cost-basis/supplied-rows-error.ts';
import { sourceName } from '../prices/price-point.ts';
import { typesTreatedAs } from '../treatments/treatment-table.ts';

/** The columns of a proceeds file (header required, any order, names case-insensitive). */
export const PROCEEDS_COLUMNS = ['record_id', 'proceeds', 'currency', 'source', 'note'] as const;
const REQUIRED = ['record_id', 'proceeds', 'currency', 'source'] as const;
const PLAIN_DECIMAL = /^\d{1,30}(\.\d{1,18})?$/;
/** The P2P types whose proceeds no record states (treatment `unknown-proceeds`: `sell`). */
const SELL_TYPES = typesTreatedAs('p2p', 'unknown-proceeds');
/** `p2p:`, as the gains reports write a P2P record's id. */
const P2P_ID = idPrefix('p2p');

export interface ProceedsRow {
  readonly line: number;
  /** As the gains reports show it: `p2p:<record id>`. */
  readonly recordId: string;
  readonly proceeds: string;
  readonly currency: string;
  readonly source: string;
  readonly note: string;
}

/** What a proceeds import did (`inserted`: sales' proceeds new to the account). */
export type ProceedsImportResult = SuppliedImportResult;

const ISO_ONLY = isoOr(undefined);

/**
 * Reads and checks a proceeds file (docs/reports.md, "Unknown proceeds"): every row, or a typed
 * error with one message per bad row naming the line, the field and the rule (supplied-csv.ts).
 * record_id names a P2P sell as the gains reports show it (`p2p:<id>`); proceeds is a plain
 * decimal, 0 or more; currency one `currencies` accepts; source where the figure comes from (a
 * bank statement). One row per sale and currency.
 */
export function parseProceeds(text: string, currencies: CurrencyRule = ISO_ONLY): ProceedsRow[] {
  const seen = new Set<string>();
  return readSuppliedCsv(text, PROCEEDS_COLUMNS, REQUIRED, ({ line, cell, field }) => {
    const recordId = cell('record_id');
    if (!recordId.startsWith(P2P_ID) || recordId.length === P2P_ID.length) {
      throw new ValidationError(
        field('record_id'),
        'must name a P2P sell as the gains reports show it (p2p:<id>)',
        recordId,
      );
    }
    const proceeds = cell('proceeds');
    if (!PLAIN_DECIMAL.test(proceeds)) {
      throw new ValidationError(field('proceeds'), 'must be a plain decimal, 0 or more', proceeds);
    }
    const row: ProceedsRow = {
      line,
      recordId,
      proceeds,
      currency: suppliedCurrency(field('currency'), cell('currency'), currencies),
      source: sourceName(field('source'), cell('source')),
      note: cell('note'),
    };
    const key = `${row.recordId}|${row.currency}`;
    if (seen.has(key)) {
      throw new ValidationError(
        `line ${line}`,
        'must not repeat the proceeds of a sale in a currency of an earlier row',
      );
    }
    seen.add(key);
    return row;
  });
}

/**
 * Checks every row against the account's records and its live imports: the sale must be a P2P
 * sell of the account; a sale's proceeds once supplied in a currency are not replaced by a
 * different figure (a correction is a visible decision: withdraw that import, then supply anew).
 * Returns each row's sale instant, or one message per bad row (SuppliedRowsError).
 */
async function checkAgainstStored(db: pg.ClientBase, accountId: string, rows: readonly ProceedsRow[]) {
  const ids = rows.map((r) => r.recordId.slice(P2P_ID.length));
  const { rows: sales } = await db.query<{ id: string; ms: string }>(
    `SELECT record_id AS id, (extract(epoch FROM ts) * 1000)::bigint::text AS ms FROM p2p_ledger_record
      WHERE account_id = $1::uuid AND record_id = ANY($2::text[]) AND p2p_tax_type = ANY($3::text[])`,
    [accountId, ids, SELL_TYPES],
  );
  const soldAt = new Map(sales.map((s) => [`${P2P_ID}${s.id}`, s.ms]));
  const { rows: stored } = await db.query<{ recordId: string; currency: string; proceeds: string; importId: string }>(
    `SELECT p.record_id AS "recordId", p.currency, p.proceeds::text, p.import_id::text AS "importId"
       FROM supplied_proceeds p JOIN proceeds_import i ON i.id = p.import_id AND i.withdrawn_at IS NULL
      WHERE p.account_id = $1::uuid AND p.record_id = ANY($2::text[])`,
    [accountId, rows.map((r) => r.recordId)],
  );
  const earlier = new Map(stored.map((s) => [`${s.recordId}|${s.currency}`, s]));
  const problems: RowProblem[] = [];
  const instants = rows.map((row) => {
    const ms = soldAt.get(row.recordId);
    const before = earlier.get(`${row.recordId}|${row.currency}`);
    let problem: ValidationError | undefined;
    if (ms === undefined) {
      problem = new ValidationError(`line ${row.line} record_id`, 'must name a P2P sell of the account', row.recordId);
    } else if (before !== undefined && !new Decimal(before.proceeds).eq(row.proceeds)) {
      problem = new ValidationError(
        `line ${row.line} proceeds`,
        `differs from the ${before.proceeds} ${row.currency} that import ${before.importId} supplied for ${row.recordId}; a supplied figure is not replaced (withdraw that import first)`,
        row.proceeds,
      );
    }
    if (problem !== undefined) problems.push({ line: row.line, field: problem.field!, message: problem.message });
    return ms ?? '';
  });
  if (problems.length > 0) throw new SuppliedRowsError(problems);
  return instants;
}

/**
 * `ledgerline proceeds import --file F` and the page's upload and form: every row of the file
 * checked first (its form, then against the account's P2P sells and live imports; one message per
 * bad row), then the import (who, when, from what) and its rows written in one transaction
 * (nothing half-written). Idempotent: the same file again is found by its SHA-256 and adds
 * nothing while its import stands; a sale's proceeds a live import already supplies are not added twice.
 */
export async function importProceeds(
  db: pg.ClientBase,
  accountId: string,
  file: string | SuppliedInput,
  currencies: CurrencyRule = ISO_ONLY,
): Promise<ProceedsImportResult> {
  return importSuppliedFile(db, accountId, file, {
    importTable: 'proceeds_import',
    parse: (text) => parseProceeds(text, currencies),
    async insert(db, accountId, importId, rows) {
      const soldAt = await checkAgainstStored(db, accountId, rows);
      const inserted = await db.query(
        `INSERT INTO supplied_proceeds (account_id, import_id, record_id, sold_at, proceeds, currency, source, note)
           SELECT $1::uuid, $2::bigint, r.record_id, timestamptz 'epoch' + r.ms * interval '1 millisecond',
                  r.proceeds::numeric, r.currency, r.source, r.note
             FROM unnest($3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[])
                  AS r(record_id, ms, proceeds, currency, source, note)
            WHERE NOT EXISTS (
              SELECT 1 FROM supplied_proceeds p JOIN proceeds_import i ON i.id = p.import_id AND i.withdrawn_at IS NULL
               WHERE p.account_id = $1::uuid AND p.record_id = r.record_id AND p.currency = r.currency)
           ON CONFLICT DO NOTHING`,
        [
          accountId,
          importId,
          rows.map((r) => r.recordId),
          soldAt,
          rows.map((r) => r.proceeds),
          rows.map((r) => r.currency),
          rows.map((r) => r.source),
          rows.map((r) => r.note),
        ],
      );
      return inserted.rowCount ?? 0;
    },
  });
}

export interface ProceedsImportListing extends SuppliedProvenance {
  readonly id: string;
  readonly fileName: string;
  readonly sources: string;
  readonly rows: number;
  /** Sales' proceeds this import added. */
  readonly sales: number;
  /** The currencies of its figures, comma-separated. */
  readonly currencies: string;
  readonly importedAt: string;
}

/** Every proceeds import of the account, oldest first: who supplied it, when, from what, any withdrawal. */
export async function listProceedsImports(db: pg.ClientBase, accountId: string): Promise<ProceedsImportListing[]> {
  const { rows } = await db.query<ProceedsImportListing>(
    `SELECT i.id::text AS id, i.file_name AS "fileName", i.sources, i.rows,
            (SELECT count(*)::int FROM supplied_proceeds p WHERE p.import_id = i.id) AS sales,
            coalesce((SELECT string_agg(DISTINCT p.currency, ',') FROM supplied_proceeds p WHERE p.import_id = i.id), '')
              AS currencies,
            ${PROVENANCE_COLUMNS}
       FROM proceeds_import i WHERE i.account_id = $1::uuid ORDER BY i.id`,
    [accountId],
  );
  return rows;
}
