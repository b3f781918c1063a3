import type pg from 'pg';

const DAY = 86_400_000;

/** When the account's last full check (`reconcile --full`, or the schedule's) started; null: never. */
export async function lastFullCheck(db: pg.Pool | pg.ClientBase, accountId: string): Promise<Date | null> {
  const { rows } = await db.query<{ at: Date | null }>(
    `SELECT max(started_at) AS at FROM reconciliation_report WHERE account_id = $1 AND "full"`,
    [accountId],
  );
  return rows[0]?.at ?? null;
}

/**
 * Whether the nightly reconciliation should check the whole history: the operator's schedule
 * (RECONCILE_FULL_EVERY_DAYS; 0 never) says how old the last full check may grow. The nightly
 * checks read only what the night stored; a record lost from a stretch they verified, which no
 * night re-reads, is found by the full check (balance-checkpoint.ts).
 */
export async function fullCheckDue(
  db: pg.Pool | pg.ClientBase,
  accountId: string,
  everyDays: number,
  now: number,
): Promise<boolean> {
  if (everyDays === 0) return false;
  const last = await lastFullCheck(db, accountId);
  return last === null || now - last.getTime() >= everyDays * DAY;
}
