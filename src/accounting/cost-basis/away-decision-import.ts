import { Decimal } from 'decimal.js';
import type pg from 'pg';

import { ValidationError } from '../../errors/index.ts';
import { parseInstant } from '../../ingest/time-arguments.ts';
import { AWAY_DECISIONS, type AwayDecisionKind } from '../gains/coins-away.ts';
import { OWN_MOVE_TYPES } from '../gains/own-moves-away.ts';
import { coinCode, sourceName } from '../prices/price-point.ts';
import { readSuppliedCsv } from './supplied-csv.ts';
import {
  importSuppliedFile,
  readSuppliedFile,
  type SuppliedImportResult,
  type SuppliedInput,
} from './supplied-file-import.ts';
import { PROVENANCE_COLUMNS, type SuppliedProvenance } from './supplied-provenance.ts';

/** The columns of a decisions file (header required, any order, names case-insensitive). */
export const AWAY_DECISION_COLUMNS = [
  'record_id',
  'coin',
  'quantity',
  'decision',
  'decided_at',
  'source',
  'note',
] as const;
const REQUIRED = ['record_id', 'coin', 'quantity', 'decision', 'decided_at', 'source'] as const;
const PLAIN_DECIMAL = /^\d{1,30}(\.\d{1,18})?$/;

export interface AwayDecisionRow {
  readonly line: number;
  /** The move's spot record id as the exchange gives it (as `coinsAway` lists it). */
  readonly recordId: string;
  readonly coin: string;
  readonly quantity: string;
  readonly decision: AwayDecisionKind;
  readonly decidedAtMs: number;
  readonly source: string;
  readonly note: string;
}

/**
 * Reads and checks a decisions file (docs/reports.md, "Coins away"): every row or a typed error
 * naming the line, the field and the rule. record_id is the move as `ledgerline away-decision
 * list` shows it; quantity a plain decimal above 0; decision `held` or `lost`; decided_at a date
 * (00:00 UTC), a date-time with an offset or Unix ms: for `lost`, the instant of the disposal for
 * nothing. One row per move.
 */
export function parseAwayDecisions(text: string): AwayDecisionRow[] {
  const seen = new Set<string>();
  return readSuppliedCsv(text, AWAY_DECISION_COLUMNS, REQUIRED, ({ line, cell, field }) => {
    const recordId = cell('record_id');
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(recordId)) {
      throw new ValidationError(field('record_id'), 'must be a spot record id as the exchange gives it', recordId);
    }
    const quantity = cell('quantity');
    if (!PLAIN_DECIMAL.test(quantity) || new Decimal(quantity).isZero()) {
      throw new ValidationError(field('quantity'), 'must be a plain decimal above 0', quantity);
    }
    const decision = cell('decision').toLowerCase();
    if (!(AWAY_DECISIONS as readonly string[]).includes(decision)) {
      throw new ValidationError(field('decision'), `must be one of ${AWAY_DECISIONS.join(', ')}`, cell('decision'));
    }
    if (seen.has(recordId)) throw new ValidationError(`line ${line}`, 'must not decide a move of an earlier row again');
    seen.add(recordId);
    return {
      line,
      recordId,
      coin: coinCode(field('coin'), cell('coin')),
      quantity,
      decision: decision as AwayDecisionKind,
      decidedAtMs: parseInstant(field('decided_at'), cell('decided_at')),
      source: sourceName(field('source'), cell('source')),
      note: cell('note'),
    };
  });
}

/**
 * Each row against the account's records and the decisions in effect: the move must be a spot own
 * move away (a strategy, Earn, a lock: OWN_MOVE_TYPES, amount below 0) of the coin named, the
 * quantity at most what it moved, the decision not before the move. A move already decided by an
 * import in effect keeps that decision: the same one again is not added twice, a different one is
 * refused (withdraw the earlier import first: a change is a decision to make visibly). Returns
 * per row its move's instant, or null for a row already in effect.
 */
async function checkAgainstStored(
  db: pg.ClientBase,
  accountId: string,
  rows: readonly AwayDecisionRow[],
): Promise<(string | null)[]> {
  const { rows: moves } = await db.query<{ id: string; coin: string; amount: string; ms: string }>(
    `SELECT record_id AS id, upper(coin) AS coin, (-amount)::text AS amount,
            (extract(epoch FROM ts) * 1000)::bigint::text AS ms
       FROM spot_record
      WHERE account_id = $1::uuid AND record_id = ANY($2::text[]) AND spot_tax_type = ANY($3::text[]) AND amount < 0`,
    [accountId, rows.map((r) => r.recordId), OWN_MOVE_TYPES],
  );
  const byId = new Map(moves.map((m) => [m.id, m]));
  const { rows: decided } = await db.query<{
    recordId: string;
    decision: string;
    quantity: string;
    ms: string;
    importId: string;
  }>(
    `SELECT d.record_id AS "recordId", d.decision, d.quantity::text AS quantity,
            (extract(epoch FROM d.decided_at) * 1000)::bigint::text AS ms, d.import_id::text AS "importId"
       FROM away_decision d JOIN away_decision_import i ON i.id = d.import_id
      WHERE d.account_id = $1::uuid AND d.record_id = ANY($2::text[]) AND i.withdrawn_at IS NULL`,
    [accountId, rows.map((r) => r.recordId)],
  );
  const inEffect = new Map(decided.map((d) => [d.recordId, d]));
  return rows.map((row) => {
    const move = byId.get(row.recordId);
    const at = (name: string) => `line ${row.line} ${name}`;
    if (move === undefined) {
      throw new ValidationError(
        at('record_id'),
        'must name a spot move away of the account (to a strategy, Earn, a lock)',
        row.recordId,
      );
    }
    if (move.coin !== row.coin) throw new ValidationError(at('coin'), `must be the move's coin ${move.coin}`, row.coin);
    if (new Decimal(row.quantity).gt(move.amount)) {
      throw new ValidationError(at('quantity'), `must be at most the ${move.amount} ${move.coin} moved`, row.quantity);
    }
    if (row.decidedAtMs < Number(move.ms)) {
      throw new ValidationError(
        at('decided_at'),
        `must not be before the move (${new Date(Number(move.ms)).toISOString()})`,
        new Date(row.decidedAtMs).toISOString(),
      );
    }
    const before = inEffect.get(row.recordId);
    if (before === undefined) return move.ms;
    const same =
      before.decision === row.decision &&
      new Decimal(before.quantity).eq(row.quantity) &&
      Number(before.ms) === row.decidedAtMs;
    if (same) return null;
    throw new ValidationError(
      at('decision'),
      `differs from the decision of import ${before.importId} (${before.decision} ${before.quantity} at ${new Date(Number(before.ms)).toISOString()}); withdraw that import first`,
      row.decision,
    );
  });
}

/**
 * `ledgerline away-decision import --file F`: every row checked first (its form, then against the
 * account's moves and the decisions in effect), then the import (who supplied it, from what file)
 * and its rows in one transaction (nothing half-written). Idempotent: the same file again is found
 * by its SHA-256 and adds nothing; a decision another import already made is not added twice.
 */
export async function importAwayDecisions(
  db: pg.ClientBase,
  accountId: string,
  file: string | SuppliedInput,
  suppliedBy: string = typeof file === 'string' ? '' : file.suppliedBy,
): Promise<SuppliedImportResult> {
  if (!/^(cli|web):\S{1,100}$/.test(suppliedBy)) {
    throw new ValidationError('suppliedBy', 'must be cli:<OS user> or web:<role>', suppliedBy);
  }
  // A path (the command line) is read within the bound; the page's form or upload brings its bytes.
  const input = { ...(typeof file === 'string' ? await readSuppliedFile(file) : file), suppliedBy };
  return importSuppliedFile(db, accountId, input, {
    importTable: 'away_decision_import',
    parse: parseAwayDecisions,
    async insert(db, accountId, importId, rows) {
      const movedAt = await checkAgainstStored(db, accountId, rows);
      const fresh = rows.flatMap((row, i) => (movedAt[i] === null ? [] : [{ row, ms: movedAt[i]! }]));
      if (fresh.length === 0) return 0;
      const inserted = await db.query(
        `INSERT INTO away_decision
           (account_id, import_id, record_id, coin, quantity, moved_at, decision, decided_at, source, note)
         SELECT $1::uuid, $2::bigint, r.record_id, r.coin, r.quantity::numeric,
                timestamptz 'epoch' + r.moved_ms * interval '1 millisecond', r.decision,
                timestamptz 'epoch' + r.decided_ms * interval '1 millisecond', r.source, r.note
           FROM unnest($3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::bigint[], $9::text[], $10::text[])
                AS r(record_id, coin, quantity, moved_ms, decision, decided_ms, source, note)`,
        [
          accountId,
          importId,
          fresh.map((f) => f.row.recordId),
          fresh.map((f) => f.row.coin),
          fresh.map((f) => f.row.quantity),
          fresh.map((f) => f.ms),
          fresh.map((f) => f.row.decision),
          fresh.map((f) => f.row.decidedAtMs),
          fresh.map((f) => f.row.source),
          fresh.map((f) => f.row.note),
        ],
      );
      return inserted.rowCount ?? 0;
    },
  });
}

/**
 * Withdraws an import (a logged decision: who, when, why; the row and its decisions stay): every
 * gains walk ignores its decisions from then on, and the change is logged for the checkpoints.
 */
export async function withdrawAwayDecisions(
  db: pg.ClientBase,
  accountId: string,
  importId: string,
  by: string,
  reason: string,
): Promise<void> {
  if (!/^\d{1,18}$/.test(importId)) throw new ValidationError('--import', 'must be an import id', importId);
  if (reason.trim() === '') throw new ValidationError('--reason', 'must say why the decisions are withdrawn', reason);
  const { rows } = await db.query<{ withdrawn: boolean }>(
    `SELECT withdrawn_at IS NOT NULL AS withdrawn FROM away_decision_import WHERE id = $1::bigint AND account_id = $2::uuid`,
    [importId, accountId],
  );
  if (rows[0] === undefined)
    throw new ValidationError('--import', 'must name a decisions import of the account', importId);
  if (rows[0].withdrawn) throw new ValidationError('--import', 'is withdrawn already', importId);
  await db.query(
    `UPDATE away_decision_import SET withdrawn_at = now(), withdrawn_by = $3, withdrawn_reason = $4
      WHERE id = $1::bigint AND account_id = $2::uuid`,
    [importId, accountId, by, reason.trim()],
  );
}

export interface AwayDecisionImportListing extends SuppliedProvenance {
  readonly id: string;
  readonly fileName: string;
  readonly sources: string;
  readonly rows: number;
  readonly decisions: number;
}

/** Every decisions import of the account, oldest first, withdrawn ones included (and said so). */
export async function listAwayDecisionImports(
  db: pg.ClientBase,
  accountId: string,
): Promise<AwayDecisionImportListing[]> {
  const { rows } = await db.query<AwayDecisionImportListing>(
    `SELECT i.id::text AS id, i.file_name AS "fileName", i.sources, i.rows,
            (SELECT count(*)::int FROM away_decision d WHERE d.import_id = i.id) AS decisions,
            ${PROVENANCE_COLUMNS}
       FROM away_decision_import i WHERE i.account_id = $1::uuid ORDER BY i.id`,
    [accountId],
  );
  return rows;
}
