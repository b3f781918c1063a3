import type pg from 'pg';

/*
 * Pruning the gains change log (gains_input_change), which triggers grow by a row per writing
 * statement (gains-checkpoint-store.ts). A checkpoint at T compares the count at T (the summed
 * weights of the rows at or before T) of its walk's snapshot with the reader's. So a prune must
 * never lower the count at any instant: a plain DELETE of rows "covered" by a checkpoint would,
 * and a walk in flight whose snapshot still held them could then store a checkpoint that a later
 * change brings back to the very count it saved, its state stale and used.
 *
 * The prune instead replaces rows by one row of their summed weight dated at the earliest of them:
 * each row moves to an instant at or before its own, so the count at every instant stays or rises,
 * and a checkpoint that did not match never matches through a prune. The rows merged together are
 * those between two neighbouring instants of the stored checkpoints (T1, T2]: the count at every
 * stored instant is then what it was, and every valid checkpoint stays valid. What remains of the
 * log is at most one row per interval between the checkpoint instants (plus one after the last),
 * whatever the number of writes: the account's rows against its own checkpoints, the rows of every
 * account (account_id null: imported prices, TRUNCATE) against every checkpoint.
 *
 * A checkpoint stored at a new instant inside a merged interval by a walk whose snapshot predates
 * the prune sees the count there rise, and is not used until a later walk stores it again (the
 * store replaces a checkpoint by one whose snapshot counted more). That costs one export its
 * shortcut, never a wrong result, and is rare because the prune runs right after the walk that
 * stored the instants. One prune at a time per account (a transaction advisory lock), so two
 * prunes never wait on each other's rows.
 *
 * When it runs: right after a walk stores its checkpoints (checkpointed-walk.ts: the instants
 * just stored are kept exact), and after each account's nightly sync (after-sync.ts: an account
 * that is never exported keeps one row, not a row per page its syncs stored).
 */

/** Merges the rows of `account_id = $1` between neighbouring instants of its checkpoints. */
const MERGE_ACCOUNT = `
  WITH placed AS (
    SELECT g.id, g.changed_from, g.weight,
           (SELECT min(c.as_of) FROM gains_checkpoint c
             WHERE c.account_id = $1::uuid AND c.as_of >= g.changed_from) AS until
      FROM gains_input_change g
     WHERE g.account_id = $1::uuid
  ), crowded AS (
    SELECT id, until, count(*) OVER (PARTITION BY until) AS n FROM placed
  ), gone AS (
    DELETE FROM gains_input_change g USING crowded p
     WHERE g.id = p.id AND p.n > 1
    RETURNING p.until, g.changed_from, g.weight
  ), merged AS (
    INSERT INTO gains_input_change (account_id, changed_from, source, weight)
    SELECT $1::uuid, min(changed_from), 'merged', sum(weight) FROM gone GROUP BY until
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM gone)::int AS removed, (SELECT count(*) FROM merged)::int AS written`;

/** The same for the rows of every account, against every account's checkpoint instants. */
const MERGE_SHARED = `
  WITH instants AS MATERIALIZED (
    SELECT DISTINCT as_of FROM gains_checkpoint
  ), placed AS (
    SELECT g.id, g.changed_from, g.weight,
           (SELECT min(i.as_of) FROM instants i WHERE i.as_of >= g.changed_from) AS until
      FROM gains_input_change g
     WHERE g.account_id IS NULL
  ), crowded AS (
    SELECT id, until, count(*) OVER (PARTITION BY until) AS n FROM placed
  ), gone AS (
    DELETE FROM gains_input_change g USING crowded p
     WHERE g.id = p.id AND p.n > 1
    RETURNING p.until, g.changed_from, g.weight
  ), merged AS (
    INSERT INTO gains_input_change (account_id, changed_from, source, weight)
    SELECT NULL, min(changed_from), 'merged', sum(weight) FROM gone GROUP BY until
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM gone)::int AS removed, (SELECT count(*) FROM merged)::int AS written`;

/**
 * The shared rows are merged only once this many accumulate: they come from price imports and
 * TRUNCATEs (a handful a month), and placing them reads every account's checkpoint instants.
 */
export const SHARED_ROWS_BEFORE_PRUNE = 32;

export interface PruneResult {
  /** Log rows removed (merged into others or into the rows written). */
  readonly removed: number;
  /** Merged rows written in their place. */
  readonly written: number;
}

/**
 * Merges the account's change-log rows (and, once SHARED_ROWS_BEFORE_PRUNE have accumulated, the
 * rows of every account) between neighbouring checkpoint instants, each in a transaction of its
 * own on `db` (which must not be in one). Safe at any time, beside any walk or write (see above).
 */
export async function pruneInputChanges(db: pg.ClientBase, accountId: string): Promise<PruneResult> {
  const account = await merge(db, accountId, MERGE_ACCOUNT, [accountId]);
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (
       SELECT 1 FROM gains_input_change WHERE account_id IS NULL LIMIT ${SHARED_ROWS_BEFORE_PRUNE + 1}) s`,
  );
  if (rows[0]!.n <= SHARED_ROWS_BEFORE_PRUNE) return account;
  const shared = await merge(db, 'shared', MERGE_SHARED, []);
  return { removed: account.removed + shared.removed, written: account.written + shared.written };
}

async function merge(db: pg.ClientBase, lockKey: string, sql: string, params: string[]): Promise<PruneResult> {
  await db.query('BEGIN');
  try {
    await db.query(`SELECT pg_advisory_xact_lock(hashtext('gains_input_change'), hashtext($1))`, [lockKey]);
    const { rows } = await db.query<PruneResult>(sql, params);
    await db.query('COMMIT');
    return rows[0]!;
  } catch (error) {
    await db.query('ROLLBACK');
    throw error;
  }
}
