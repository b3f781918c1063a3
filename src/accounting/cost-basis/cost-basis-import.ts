import type pg from 'pg';

import { ValidationError } from '../../errors/index.ts';
import { parseInstant } from '../../ingest/time-arguments.ts';
import { coinCode, sourceName } from '../prices/price-point.ts';
import { readSuppliedCsv } from './supplied-csv.ts';
import { importSuppliedFile, type SuppliedImportResult } from './supplied-file-import.ts';

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

/**
 * Reads and checks a cost-basis file (docs/reports.md, "Unknown cost"): every row or a typed error
 * naming the line, the field and the rule. quantity > 0 and cost >= 0 are plain decimals; acquired_at
 * is an ISO date-time with zone, a date (00:00 UTC) or Unix ms; coin and currency are codes; source
 * names where the figures come from (a broker statement, a wallet export).
 */
export function parseCostBasis(text: string): CostBasisRow[] {
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
      currency: coinCode(field('currency'), cell('currency')),
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
 * `ledgerline cost-basis import --file F`: every row of the file checked first, then the import and
 * its lots written in one transaction (nothing half-written). Idempotent: the same file again is
 * found by its SHA-256 and adds nothing; a row another file already supplied is not added twice.
 */
export async function importCostBasis(
  db: pg.ClientBase,
  accountId: string,
  file: string,
): Promise<CostBasisImportResult> {
  return importSuppliedFile(db, accountId, file, {
    importTable: 'cost_basis_import',
    parse: parseCostBasis,
    async insert(db, accountId, importId, rows) {
      const inserted = await db.query(
        `INSERT INTO cost_basis_lot (account_id, import_id, coin, quantity, acquired_at, cost, currency, source, note)
           SELECT $1::uuid, $2::bigint, r.coin, r.quantity::numeric,
                  timestamptz 'epoch' + r.ms * interval '1 millisecond', r.cost::numeric, r.currency, r.source, r.note
             FROM unnest($3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[])
                  AS r(coin, quantity, ms, cost, currency, source, note)
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

export interface CostBasisImportListing {
  readonly id: string;
  readonly fileName: string;
  readonly sources: string;
  readonly rows: number;
  readonly lots: number;
  readonly importedAt: string;
}

/** Every import of the account, oldest first, with its sources and how many lots it added. */
export async function listCostBasisImports(db: pg.ClientBase, accountId: string): Promise<CostBasisImportListing[]> {
  const { rows } = await db.query<CostBasisImportListing>(
    `SELECT i.id::text AS id, i.file_name AS "fileName", i.sources, i.rows,
            (SELECT count(*)::int FROM cost_basis_lot l WHERE l.import_id = i.id) AS lots,
            to_char(i.imported_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "importedAt"
       FROM cost_basis_import i WHERE i.account_id = $1::uuid ORDER BY i.id`,
    [accountId],
  );
  return rows;
}
