import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import type pg from 'pg';

import { ValidationError } from '../../errors/index.ts';

/** What importing one accountant's file did. */
export interface SuppliedImportResult {
  readonly importId: string;
  readonly rows: number;
  /** Rows new to the account (a row an earlier file already supplied is not added twice). */
  readonly inserted: number;
  /** The file was imported before (same content): nothing written. */
  readonly alreadyImported: boolean;
}

/** One kind of accountant's file: cost-basis lots or P2P proceeds. */
export interface SuppliedFileKind<Row extends { readonly source: string }> {
  /** The table listing the imports (`cost_basis_import`, `proceeds_import`, `away_decision_import`). */
  readonly importTable: string;
  /**
   * Who supplies the file (`cli:<OS user>`, `web:<role>`), for an import table with the
   * `supplied_by` column of the supplied-figure design; a table without it: undefined.
   */
  readonly suppliedBy?: string;
  /** Every row or a typed error naming the line, the field and the rule. */
  parse(text: string): Row[];
  /**
   * Writes the rows of the new import `importId` (after any check against what is stored, inside
   * the import's transaction) and returns how many were new.
   */
  insert(db: pg.ClientBase, accountId: string, importId: string, rows: Row[]): Promise<number>;
}

/**
 * `ledgerline cost-basis import` and `proceeds import`: every row of the file checked first, then
 * the import and its rows written in one transaction (nothing half-written). Idempotent: the same
 * file again is found by its SHA-256 and adds nothing.
 */
export async function importSuppliedFile<Row extends { readonly source: string }>(
  db: pg.ClientBase,
  accountId: string,
  file: string,
  kind: SuppliedFileKind<Row>,
): Promise<SuppliedImportResult> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new ValidationError('--file', `cannot be read: ${(error as Error).message}`, file);
  }
  const rows = kind.parse(bytes.toString('utf8'));
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const sources = [...new Set(rows.map((row) => row.source))].sort().join(',');
  await db.query('BEGIN');
  try {
    const found = await db.query<{ id: string }>(
      `SELECT id::text FROM ${kind.importTable} WHERE account_id = $1::uuid AND sha256 = $2`,
      [accountId, sha256],
    );
    if (found.rows[0] !== undefined) {
      await db.query('COMMIT');
      return { importId: found.rows[0].id, rows: rows.length, inserted: 0, alreadyImported: true };
    }
    const values = [accountId, path.basename(file), sha256, sources, rows.length];
    const created = await db.query<{ id: string }>(
      kind.suppliedBy === undefined
        ? `INSERT INTO ${kind.importTable} (account_id, file_name, sha256, sources, rows)
           VALUES ($1::uuid, $2, $3, $4, $5) RETURNING id::text`
        : `INSERT INTO ${kind.importTable} (account_id, file_name, sha256, sources, rows, supplied_by)
           VALUES ($1::uuid, $2, $3, $4, $5, $6) RETURNING id::text`,
      kind.suppliedBy === undefined ? values : [...values, kind.suppliedBy],
    );
    const importId = created.rows[0]!.id;
    const inserted = await kind.insert(db, accountId, importId, rows);
    await db.query('COMMIT');
    return { importId, rows: rows.length, inserted, alreadyImported: false };
  } catch (error) {
    await db.query('ROLLBACK');
    throw error;
  }
}
