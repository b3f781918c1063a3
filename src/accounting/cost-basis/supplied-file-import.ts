import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';

import type pg from 'pg';

import { ValidationError } from '../../errors/index.ts';
import { FILE_LIMIT_WORDS, SUPPLIED_LIMITS, suppliedText } from './supplied-csv.ts';

/** What importing one accountant's file did. */
export interface SuppliedImportResult {
  readonly importId: string;
  readonly rows: number;
  /** Rows new to the account (a row a live earlier import already supplies is not added twice). */
  readonly inserted: number;
  /** The file was imported before (same content, not withdrawn): nothing written. */
  readonly alreadyImported: boolean;
}

/** One kind of accountant's file: cost-basis lots or P2P proceeds. */
export interface SuppliedFileKind<Row extends { readonly source: string }> {
  /** The table listing the imports (`cost_basis_import`, `proceeds_import`, `away_decision_import`). */
  readonly importTable: string;
  /** Every row, or a typed error: one message per bad row (SuppliedRowsError). */
  parse(text: string): Row[];
  /**
   * Writes the rows of the new import `importId` (after any check against what is stored, inside
   * the import's transaction, under the account's lock for this kind) and returns how many were new.
   */
  insert(db: pg.ClientBase, accountId: string, importId: string, rows: Row[]): Promise<number>;
}

/**
 * What is imported and from whom (docs/reports.md, "Supplied figures"): the file's bytes and name,
 * and who supplied them: `cli:<OS user>` from the command line, `web:<role>` from the page (whose
 * form entries arrive as the canonical CSV they amount to, named `page form`).
 */
export interface SuppliedInput {
  readonly bytes: Uint8Array;
  readonly fileName: string;
  readonly suppliedBy: string;
}

/** Who runs the command line: `cli:<OS user>`. */
export function cliSupplier(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    // A user id with no entry in the password database (some containers).
    return 'cli:unknown';
  }
}

/**
 * A file's bytes, read no further than the bound: a file larger than SUPPLIED_LIMITS.fileBytes (a
 * 600 MB export picked by mistake) is refused after reading one byte past it, never loaded whole.
 */
export async function readSuppliedFile(file: string): Promise<SuppliedInput> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    throw new ValidationError('--file', `cannot be read: ${(error as Error).message}`, file);
  }
  try {
    const limit = SUPPLIED_LIMITS.fileBytes;
    const buffer = Buffer.alloc(limit + 1);
    let length = 0;
    while (length <= limit) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > limit) throw new ValidationError('--file', `must be at most ${FILE_LIMIT_WORDS}`, file);
    return { bytes: buffer.subarray(0, length), fileName: path.basename(file), suppliedBy: cliSupplier() };
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    throw new ValidationError('--file', `cannot be read: ${(error as Error).message}`, file);
  } finally {
    await handle.close();
  }
}

// A file name as listed: one line, at most 200 characters (the page shows it, the CLI prints it).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const shownName = (name: string) => name.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?').slice(0, 200) || 'unnamed';

/**
 * `ledgerline cost-basis import` and `proceeds import`, and the page's uploads and forms: every
 * row of the file checked first (one message per bad row), then the import and its rows written
 * in one transaction (nothing half-written) with who supplied them, when and from what file.
 * Idempotent: the same file again (its SHA-256) while its import stands adds nothing. `file` is a
 * path (read within the bound, supplied by `cli:<OS user>`) or the bytes themselves.
 */
export async function importSuppliedFile<Row extends { readonly source: string }>(
  db: pg.ClientBase,
  accountId: string,
  file: string | SuppliedInput,
  kind: SuppliedFileKind<Row>,
): Promise<SuppliedImportResult> {
  const input = typeof file === 'string' ? await readSuppliedFile(file) : file;
  const rows = kind.parse(suppliedText(input.bytes));
  const sha256 = createHash('sha256').update(input.bytes).digest('hex');
  const sources = [...new Set(rows.map((row) => row.source))].sort().join(',');
  await db.query('BEGIN');
  try {
    // One import of a kind at a time per account: "not added twice" is checked against live imports.
    await db.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [kind.importTable, accountId]);
    const found = await db.query<{ id: string }>(
      `SELECT id::text FROM ${kind.importTable}
        WHERE account_id = $1::uuid AND sha256 = $2 AND withdrawn_at IS NULL`,
      [accountId, sha256],
    );
    if (found.rows[0] !== undefined) {
      await db.query('COMMIT');
      return { importId: found.rows[0].id, rows: rows.length, inserted: 0, alreadyImported: true };
    }
    const created = await db.query<{ id: string }>(
      `INSERT INTO ${kind.importTable} (account_id, file_name, sha256, sources, rows, supplied_by)
       VALUES ($1::uuid, $2, $3, $4, $5, $6) RETURNING id::text`,
      [accountId, shownName(input.fileName), sha256, sources, rows.length, input.suppliedBy],
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
