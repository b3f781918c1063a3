import type pg from 'pg';

import { openClient } from '../db/pg-connections.ts';

/** The database does not exist yet (3D000), or holds no accounts table yet (42P01). */
const NOT_YET = new Set(['3D000', '42P01']);

/**
 * When the account `name` was first registered in the database at `databaseUrl`, read before that
 * database is migrated (or even created): null when there is no such database, table or account
 * yet. Any other failure is thrown: the day a rerun's simulator is anchored at must be the stored
 * one, never a guess.
 */
export async function registeredAt(databaseUrl: string, name: string): Promise<Date | null> {
  let client: pg.Client | undefined;
  try {
    client = await openClient({ connectionString: databaseUrl });
    const { rows } = await client.query<{ created_at: Date }>('SELECT created_at FROM account WHERE name = $1', [name]);
    return rows[0]?.created_at ?? null;
  } catch (error) {
    if (NOT_YET.has((error as { code?: string }).code ?? '')) return null;
    throw error;
  } finally {
    await client?.end().catch(() => undefined);
  }
}
