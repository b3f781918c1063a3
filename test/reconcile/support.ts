import type { StreamChoice } from '../../src/streams/registry.ts';
import { backfillUntilDone } from '../helpers/backfill-done.ts';
import type { Pipeline } from '../helpers/pipeline.ts';

export const DAY = 86_400_000;

/** Backfills [from, to) of a stream through the queue and the pipeline's workers, and waits until every window is done. */
export async function backfill(
  pipeline: Pipeline,
  options: { stream?: StreamChoice; from: number; to: number; now: number },
): Promise<void> {
  const { stream = 'all', from, to, now } = options;
  await backfillUntilDone(pipeline.runtime, { account: 'demo', stream, from, to, now }, 90_000);
}

/**
 * Moves rows matching `where` out of `table` into a backup table and returns
 * a function that puts them back: a test breaks the stored data, then restores it.
 */
export async function setAside(
  pipeline: Pipeline,
  table: string,
  where: string,
  params: unknown[],
): Promise<{ rows: number; restore: () => Promise<void> }> {
  const { pool } = pipeline.runtime;
  const backup = `aside_${table}_${Math.random().toString(36).slice(2, 10)}`;
  await pool.query(`CREATE TABLE ${backup} (LIKE ${table})`);
  await pool.query(`INSERT INTO ${backup} SELECT * FROM ${table} WHERE ${where}`, params);
  const deleted = await pool.query(`DELETE FROM ${table} WHERE ${where}`, params);
  return {
    rows: deleted.rowCount ?? 0,
    async restore() {
      await pool.query(`INSERT INTO ${table} SELECT * FROM ${backup}`);
      await pool.query(`DROP TABLE ${backup}`);
    },
  };
}
