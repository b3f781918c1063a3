import type pg from 'pg';

import { ValidationError } from '../../errors/index.ts';
import { parseInstant } from '../../ingest/time-arguments.ts';
import { coinCode, sourceName } from '../prices/price-point.ts';
import { readSuppliedCsv } from './supplied-csv.ts';
import { type CurrencyRule, isoOr, suppliedCurrency } from './supplied-currency.ts';
import { importSuppliedFile, type SuppliedImportResult, type SuppliedInput } from './supplied-file-import.ts';
import { PROVENANCE_COLUMNS, type SuppliedProvenance } from './supplied-provenance.ts';

/** The columns of a cost-basis file (header required, any order, names case-insensitive). */
export const COST_BASIS_COLUMNS = ['coin', 'quantity', 'acquired_at', 'cost', 'currency', 'source', 'note'] as const;
const REQUIRED = ['coin', 'quantity', 'acquired_at', 'cost', 'currency', 'source'] as const;
const PLAIN_DECIMAL = /^\d{1,30}(\.\d{1,18})?$/;
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T.+(Z|[+-]\d{2}:?\d{2})$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export interface CostBasisRow {
  readonly line: number;
  readonly coin: string;
  readonly quantity: string;
  readonly acquiredAtMs: number;
  readonly cost: string;
  readonly currency: string;
  readonly source: string;
  readonly note: string;
}

/** What a cost-basis import did (`inserted`: lots new to the account). */
export type CostBasisImportResult = SuppliedImportResult;

/** The currencies an import takes unless told otherwise: ISO 4217 (supplied-currency.ts). */
const ISO_ONLY = isoOr(undefined);

/**
 * Reads and checks a cost-basis file (docs/reports.md, "Unknown cost"): every row, or a typed
 * error with one message per bad row naming the line, the field and the rule (supplied-csv.ts).
 * quantity > 0 and cost >= 0 are plain decimals; acquired_at is an ISO date-time with zone, a date
 * (00:00 UTC) or Unix ms; coin is a code; currency one `currencies` accepts; source names where
 * the figures come from (a broker statement, a wallet export).
 */
export function parseCostBasis(text: string, currencies: CurrencyRule = ISO_ONLY): CostBasisRow[] {
  const seen = new Set<string>();
  return readSuppliedCsv(text, COST_BASIS_COLUMNS, REQUIRED, ({ line, cell, field }) => {
    const quantity = cell('quantity');
    if (!PLAIN_DECIMAL.test(quantity) || /^0*(\.0*)?$/.test(quantity)) {
      throw new ValidationError(field('quantity'), 'must be a plain decimal above 0', quantity);
    }
    const cost = cell('cost');
    if (!PLAIN_DECIMAL.test(cost)) throw new ValidationError(field('cost'), 'must be a plain decimal, 0 or more', cost);
    const row: CostBasisRow = {
      line,
      coin: coinCode(field('coin'), cell('coin')),
      quantity,
      acquiredAtMs: acquiredAt(field('acquired_at'), cell('acquired_at')),
      cost,
      currency: suppliedCurrency(field('currency'), cell('currency'), currencies),
      source: sourceName(field('source'), cell('source')),
      note: cell('note'),
    };
    const key = [row.coin, row.quantity, row.acquiredAtMs, row.cost, row.currency, row.source].join('|');
    if (seen.has(key)) throw new ValidationError(`line ${line}`, 'must not repeat an earlier row of the file');
    seen.add(key);
    return row;
  });
}

function acquiredAt(field: string, value: string): number {
  if (DATE.test(value)) return parseInstant(field, `${value}T00:00:00Z`);
  if (ISO_WITH_ZONE.test(value) || /^\d{1,15}$/.test(value)) return parseInstant(field, value);
  throw new ValidationError(field, 'must be a date (yyyy-MM-dd), a date-time with Z or an offset, or Unix ms', value);
}

/**
 * `ledgerline cost-basis import --file F` and the page's upload and form: every row of the file
 * checked first (one message per bad row), then the import (who, when, from what) and its lots
 * written in one transaction (nothing half-written). Idempotent: the same file again is found by
 * its SHA-256 and adds nothing while its import stands; a row a live import already supplies is
 * not added twice (a withdrawn one's may be supplied again).
 */
export async function importCostBasis(
  db: pg.ClientBase,
  accountId: string,
  file: string | SuppliedInput,
  currencies: CurrencyRule = ISO_ONLY,
): Promise<CostBasisImportResult> {
  return importSuppliedFile(db, accountId, file, {
    importTable: 'cost_basis_import',
    parse: (text) => parseCostBasis(text, currencies),
    async insert(db, accountId, importId, rows) {
      const inserted = await db.query(
        `INSERT INTO cost_basis_lot (account_id, import_id, coin, quantity, acquired_at, cost, currency, source, note)
           SELECT $1::uuid, $2::bigint, r.coin, r.quantity::numeric,
                  timestamptz 'epoch' + r.ms * interval '1 millisecond', r.cost::numeric, r.currency, r.source, r.note
             FROM unnest($3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[])
                  AS r(coin, quantity, ms, cost, currency, source, note)
            WHERE NOT EXISTS (
              SELECT 1 FROM cost_basis_lot l JOIN cost_basis_import i ON i.id = l.import_id AND i.withdrawn_at IS NULL
               WHERE l.account_id = $1::uuid AND l.coin = r.coin AND l.quantity = r.quantity::numeric
                 AND l.acquired_at = timestamptz 'epoch' + r.ms * interval '1 millisecond'
                 AND l.cost = r.cost::numeric AND l.currency = r.currency AND l.source = r.source)
           ON CONFLICT DO NOTHING`,
        [
          accountId,
          importId,
          rows.map((r) => r.coin),
          rows.map((r) => r.quantity),
          rows.map((r) => String(r.acquiredAtMs)),
          rows.map((r) => r.cost),
          rows.map((r) => r.currency),
          rows.map((r) => r.source),
          rows.map((r) => r.note),
        ],
      );
      return inserted.rowCount ?? 0;
    },
  });
}

export interface CostBasisImportListing extends SuppliedProvenance {
  readonly id: string;
  readonly fileName: string;
  readonly sources: string;
  readonly rows: number;
  readonly lots: number;
  /** The currencies of its lots, comma-separated. */
  readonly currencies: string;
  readonly importedAt: string;
}

/** Every import of the account, oldest first: who supplied it, when, from what, and any withdrawal. */
export async function listCostBasisImports(db: pg.ClientBase, accountId: string): Promise<CostBasisImportListing[]> {
  const { rows } = await db.query<CostBasisImportListing>(
    `SELECT i.id::text AS id, i.file_name AS "fileName", i.sources, i.rows,
            (SELECT count(*)::int FROM cost_basis_lot l WHERE l.import_id = i.id) AS lots,
            coalesce((SELECT string_agg(DISTINCT l.currency, ',') FROM cost_basis_lot l WHERE l.import_id = i.id), '')
              AS currencies,
            ${PROVENANCE_COLUMNS}
       FROM cost_basis_import i WHERE i.account_id = $1::uuid ORDER BY i.id`,
    [accountId],
  );
  return rows;
}
