import type pg from 'pg';

import { ValidationError } from '../../errors/index.ts';

/** What a withdrawal recorded. */
export interface Withdrawal {
  readonly importId: string;
  readonly withdrawnAt: string;
  readonly withdrawnBy: string;
  readonly reason: string;
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const REASON_BYTES = 500;

/** A withdrawal's reason as stored: a sentence, 3 to 500 bytes, one line. */
export function withdrawalReason(field: string, value: string | undefined): string {
  const reason = (value ?? '').trim();
  if (reason.length < 3) throw new ValidationError(field, 'must say why (at least 3 characters)');
  if (Buffer.byteLength(reason, 'utf8') > REASON_BYTES) {
    throw new ValidationError(field, `must be at most ${REASON_BYTES} bytes`, `${Buffer.byteLength(reason)} bytes`);
  }
  if (CONTROL.test(reason)) throw new ValidationError(field, 'must be one line without control characters');
  return reason;
}

/**
 * Withdraws one import of supplied figures (`cost_basis_import`, `proceeds_import`, or a table of
 * the same columns): a logged decision, never a delete. The import and its rows stay, marked with
 * when, by whom and why; every gains walk and the page's lists ignore them from then on, and the
 * table's trigger logs the change in gains_input_change (migration
 * 20261129065040_supplied_figures_provenance), so stored checkpoints and cached figures after its
 * earliest figure stop matching. Refused, with nothing written, for an import of another account,
 * one not found, or one already withdrawn.
 */
export async function withdrawSuppliedImport(
  db: pg.ClientBase,
  importTable: string,
  accountId: string,
  importId: string,
  withdrawnBy: string,
  reasonText: string | undefined,
): Promise<Withdrawal> {
  if (!/^\d{1,18}$/.test(importId)) throw new ValidationError('import', 'must be an import number', importId);
  const reason = withdrawalReason('reason', reasonText);
  const { rows } = await db.query<{ id: string; withdrawnAt: string | null; withdrawnBy: string | null }>(
    `WITH target AS (
       SELECT id, withdrawn_at FROM ${importTable} WHERE id = $1::bigint AND account_id = $2::uuid FOR UPDATE
     ), done AS (
       UPDATE ${importTable} i SET withdrawn_at = now(), withdrawn_by = $3, withdrawn_reason = $4
         FROM target t WHERE i.id = t.id AND t.withdrawn_at IS NULL
       RETURNING i.id
     )
     SELECT t.id::text AS id,
            to_char(coalesce(i.withdrawn_at, now()) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "withdrawnAt",
            CASE WHEN EXISTS (SELECT 1 FROM done) THEN NULL ELSE i.withdrawn_by END AS "withdrawnBy"
       FROM target t JOIN ${importTable} i ON i.id = t.id`,
    [importId, accountId, withdrawnBy, reason],
  );
  const found = rows[0];
  if (found === undefined) throw new ValidationError('import', 'must be an import of this account', importId);
  if (found.withdrawnBy !== null) {
    throw new ValidationError(
      'import',
      `was already withdrawn on ${found.withdrawnAt} by ${found.withdrawnBy}`,
      importId,
    );
  }
  return { importId: found.id, withdrawnAt: found.withdrawnAt!, withdrawnBy, reason };
}
