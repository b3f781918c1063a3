import pg from 'pg';

import { DatabaseNotReadyError } from '../errors/index.ts';
import { databaseName } from './ensure-database.ts';
import { openClient } from './pg-connections.ts';
import { migrationNames } from './tools/migrations-dir.ts';

/**
 * The migrations the database has applied, by name (Prisma's `_prisma_migrations`, as
 * `ledgerline migrate` records them); undefined when it has no such table (never migrated).
 * A migration that failed part-way or was rolled back is not applied.
 */
export async function appliedMigrations(client: pg.ClientBase): Promise<string[] | undefined> {
  const table = await client.query<{ present: boolean }>(
    "SELECT to_regclass('_prisma_migrations') IS NOT NULL AS present",
  );
  if (!table.rows[0]?.present) return undefined;
  const rows = await client.query<{ migration_name: string }>(
    'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
  );
  return rows.rows.map((row) => row.migration_name);
}

/**
 * Whether a database that applied `applied` is the one this build's `expected` migrations make;
 * the error saying what is wrong and what fixes it when it is not. Pure.
 *
 * A migration applied that this build does not know means a newer build migrated it: running
 * `migrate` cannot help, so that is reported before any migration this build still has to apply.
 */
export function migrationVerdict(
  database: string,
  applied: readonly string[] | undefined,
  expected: readonly string[],
): DatabaseNotReadyError | undefined {
  const known = new Set(expected);
  const unknown = (applied ?? []).filter((name) => !known.has(name)).sort();
  const expectedLast = expected.at(-1) ?? '(none)';
  if (unknown.length > 0) return DatabaseNotReadyError.newer(database, unknown.at(-1)!, expectedLast);
  const done = new Set(applied);
  const reached = expected.filter((name) => done.has(name));
  if (reached.length === 0) return expected.length === 0 ? undefined : DatabaseNotReadyError.notMigrated(database);
  if (reached.length === expected.length) return undefined;
  const appliedLast = reached.at(-1)!;
  // The newest is applied but an earlier one is not (one merged in between): name that one.
  if (appliedLast === expectedLast)
    return DatabaseNotReadyError.skipped(
      database,
      expected.find((n) => !done.has(n))!,
    );
  return DatabaseNotReadyError.older(database, appliedLast, expectedLast);
}

/**
 * Throws a DatabaseNotReadyError unless the connected database has applied exactly this build's
 * migrations (those in `migrationsDir`).
 */
export async function assertMigrated(client: pg.ClientBase, database: string, migrationsDir?: string): Promise<void> {
  const [applied, expected] = await Promise.all([appliedMigrations(client), migrationNames(migrationsDir)]);
  const verdict = migrationVerdict(database, applied, expected);
  if (verdict) throw verdict;
}

/**
 * Throws a DatabaseNotReadyError when a newer build has migrated the database: applying this
 * build's migrations would apply nothing and call it up to date, and this build's code cannot
 * use that schema. Missing or older is what `migrate` is for, so passes.
 */
export async function refuseNewer(databaseUrl: string, migrationsDir?: string): Promise<void> {
  const client = await openClient({ connectionString: databaseUrl });
  try {
    const [applied, expected] = await Promise.all([appliedMigrations(client), migrationNames(migrationsDir)]);
    const verdict = migrationVerdict(databaseName(databaseUrl), applied, expected);
    if (verdict?.state === 'newer') throw verdict;
  } finally {
    await client.end();
  }
}
