import type pg from 'pg';

import type { LotEngineState } from '../lots/lot-engine.ts';
import { decodeCoins, encodeCoins, type StoredCoin } from './checkpoint-codec.ts';
import type { CheckpointKey } from './gains-checkpoint-key.ts';

/*
 * Gains checkpoints: a walk's lot state at an instant T (after every ledger entry dated before T),
 * stored so that a later walk of a period starting at or after T starts there instead of at the
 * first record. A checkpoint may be used only while everything its state was computed from is
 * unchanged, checked like this:
 *
 * What the state at T depends on (besides the walk's code and parameters: the key): the spot
 * records of entries dated before T (an entry is a record, or a trade order paired from all its
 * legs and dated by its earliest leg, wherever the later legs lie), and the price points before T
 * (a point prices instants from its own time on). Nothing else: the walk reads nothing else.
 *
 * The log: triggers on spot_record and price (migration gains_checkpoint) add a gains_input_change
 * row in every statement that changes one of those inputs, in the statement's own transaction,
 * carrying the earliest instant whose entries it can change (for a leg: the earliest leg of its
 * order, so a late leg dated after T of an order dated before T counts as before T; for a price:
 * its time). Inserts, updates of the columns the entries read, deletes, and a TRUNCATE (logged at
 * -infinity, for every account) are all logged; a re-read that rewrites nothing logs nothing.
 * Each row has a weight (1 as logged); "the count at T" below is the sum of the weights of the
 * rows at or before T. Pruning (gains-change-prune.ts) replaces rows by one row of their summed
 * weight dated at the earliest of them, so the count at any instant never falls, and at every
 * stored checkpoint's instant it stays the same.
 *
 * The check: a checkpoint stores input_count, the count of log rows at or before T (the account's
 * and every account's) that the walk's own snapshot saw; it is read and walked from only inside a
 * snapshot where that count is the same. Why that is sound:
 * - The walk read its records, its prices and the count in one REPEATABLE READ snapshot S, so the
 *   state and the count describe the same database.
 * - A reader's snapshot R that sees the checkpoint row was taken after the checkpoint committed,
 *   hence after S: every transaction visible in S is visible in R. Each of S's log rows at or
 *   before T is in R too, or was merged by a prune into a row of R at or before it carrying its
 *   weight, so R's count is S's plus the weight of the rows logged since, plus what prunes moved
 *   to at or before T: equal counts mean no change at or before T committed since S.
 * - Any change visible in R but not in S to an input of the state at T committed in a transaction
 *   that also added a log row at or before T (the trigger runs in that transaction): R sees that
 *   row, and the count differs. Equal counts therefore mean R would compute the same state at T
 *   from scratch; the walk from the checkpoint then yields exactly the full walk's events.
 * - Concurrent writers need no locks: a change committing after R began is invisible to R's walk
 *   and to R's count alike.
 * A count, not a timestamp or a sequence number: those are taken when a transaction writes, not
 * when it commits, so a slow transaction could commit an older-looking change after a checkpoint
 * was written; a count over the reader's own snapshot cannot miss it. Cost: one index range sum
 * per checkpoint tried, proportional to the log (a row per writing statement since the last prune,
 * and a row per interval between the account's checkpoint instants), not to the records.
 */

export interface Checkpoint {
  readonly asOfMs: number;
  readonly state: LotEngineState;
}

export interface CheckpointToSave extends Checkpoint {
  /** The count (summed weights) of log rows at or before asOfMs in the walk's snapshot (inputCounts). */
  readonly inputCount: string;
}

const AT = (ms: string) => `timestamptz 'epoch' + ${ms}::bigint * interval '1 millisecond'`;

// The count of log rows at or before an instant (their weights summed): the account's and every
// account's (imported prices, TRUNCATE).
const countAtOrBefore = (account: string, instant: string) =>
  `(SELECT COALESCE(sum(g.weight), 0) FROM gains_input_change g
     WHERE g.account_id = ${account} AND g.changed_from <= ${instant})::bigint
   + (SELECT COALESCE(sum(g.weight), 0) FROM gains_input_change g
       WHERE g.account_id IS NULL AND g.changed_from <= ${instant})::bigint`;

const FIND = `
  SELECT c.id::text AS id, (extract(epoch FROM c.as_of) * 1000)::bigint::text AS as_of_ms, c.next_seq::text AS next_seq
    FROM gains_checkpoint c
   WHERE c.account_id = $1::uuid AND c.method = $2 AND c.currency = $3 AND c.tolerance_ms = $4::bigint
     AND c.walk_version = $5 AND c.as_of <= ${AT('$6')}
     AND c.input_count = ${countAtOrBefore('c.account_id', 'c.as_of')}
   ORDER BY c.as_of DESC
   LIMIT 1`;

const COINS = `
  SELECT coin, position, held::text AS held, pooled_quantity::text AS "pooledQuantity",
         pooled_cost::text AS "pooledCost", lots
    FROM gains_lot_checkpoint WHERE checkpoint_id = $1::bigint ORDER BY position`;

/**
 * The newest checkpoint of `key` at or before `atMostMs` whose inputs are unchanged in the
 * caller's snapshot (the walk's own transaction), with its state; null when there is none.
 */
export async function findCheckpoint(
  db: pg.ClientBase,
  key: CheckpointKey,
  atMostMs: number,
): Promise<Checkpoint | null> {
  const { rows } = await db.query<{ id: string; as_of_ms: string; next_seq: string }>(FIND, [
    key.accountId,
    key.method,
    key.currency,
    String(key.toleranceMs),
    key.walkVersion,
    String(atMostMs),
  ]);
  const found = rows[0];
  if (found === undefined) return null;
  const coins = await db.query<StoredCoin>(COINS, [found.id]);
  return { asOfMs: Number(found.as_of_ms), state: decodeCoins(coins.rows, Number(found.next_seq)) };
}

/** Per instant, the count of log rows at or before it, in the caller's snapshot (as text: a bigint). */
export async function inputCounts(
  db: pg.ClientBase,
  accountId: string,
  instantsMs: readonly number[],
): Promise<string[]> {
  if (instantsMs.length === 0) return [];
  const { rows } = await db.query<{ n: string }>(
    `SELECT (${countAtOrBefore('$1::uuid', AT('i.ms'))})::text AS n
       FROM unnest($2::bigint[]) WITH ORDINALITY AS i(ms, k) ORDER BY i.k`,
    [accountId, instantsMs.map(String)],
  );
  return rows.map((row) => row.n);
}

// A stored checkpoint is replaced only by one whose snapshot saw more log rows: with as many, both
// saw the same inputs and hold the same state; with fewer, ours is the older one (snapshots are
// nested: the later sees all the earlier saw).
const UPSERT = `
  INSERT INTO gains_checkpoint (account_id, method, currency, tolerance_ms, walk_version, as_of, next_seq, input_count)
  VALUES ($1::uuid, $2, $3, $4::bigint, $5, ${AT('$6')}, $7::bigint, $8::bigint)
  ON CONFLICT (account_id, method, currency, tolerance_ms, walk_version, as_of) DO UPDATE
     SET next_seq = EXCLUDED.next_seq, input_count = EXCLUDED.input_count, written_at = now()
   WHERE gains_checkpoint.input_count < EXCLUDED.input_count
  RETURNING id::text AS id`;

const INSERT_COINS = `
  INSERT INTO gains_lot_checkpoint (checkpoint_id, coin, position, held, pooled_quantity, pooled_cost, lots)
  SELECT $1::bigint, c.coin, c.position, c.held::numeric, c."pooledQuantity"::numeric, c."pooledCost"::numeric, c.lots
    FROM jsonb_to_recordset($2::jsonb)
      AS c(coin text, position int, held text, "pooledQuantity" text, "pooledCost" text, lots jsonb)`;

/**
 * Stores a walk's checkpoints in one transaction of its own (after the walk's read-only one), in
 * instant order so that two walks storing the same instants lock them in the same order. Returns
 * how many were written (an instant already stored from as new a snapshot is left as it is).
 */
export async function saveCheckpoints(
  db: pg.ClientBase,
  key: CheckpointKey,
  checkpoints: readonly CheckpointToSave[],
): Promise<number> {
  if (checkpoints.length === 0) return 0;
  let written = 0;
  await db.query('BEGIN');
  try {
    for (const checkpoint of [...checkpoints].sort((a, b) => a.asOfMs - b.asOfMs)) {
      const { rows } = await db.query<{ id: string }>(UPSERT, [
        key.accountId,
        key.method,
        key.currency,
        String(key.toleranceMs),
        key.walkVersion,
        String(checkpoint.asOfMs),
        String(checkpoint.state.nextSeq),
        checkpoint.inputCount,
      ]);
      const id = rows[0]?.id;
      if (id === undefined) continue;
      await db.query('DELETE FROM gains_lot_checkpoint WHERE checkpoint_id = $1::bigint', [id]);
      await db.query(INSERT_COINS, [id, JSON.stringify(encodeCoins(checkpoint.state))]);
      written++;
    }
    await db.query('COMMIT');
  } catch (error) {
    await db.query('ROLLBACK');
    throw error;
  }
  return written;
}
