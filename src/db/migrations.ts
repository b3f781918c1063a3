import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { ensureDatabase } from './ensure-database.ts';
import { refuseNewer } from './migration-state.ts';
import { DEFAULT_MIGRATIONS_DIR, DEFAULT_SCHEMA_PATH, readMigrations } from './tools/migrations-dir.ts';
import { NO_FILTERS, withSchemaEngine } from './tools/schema-engine.ts';

export interface MigrationPaths {
  schemaPath?: string;
  migrationsDir?: string;
}

/**
 * Applies prisma/migrations to the database (creating the database first if
 * it is missing) and returns the names it applied; [] when up to date.
 * Refuses (DatabaseNotReadyError) a database a newer build has migrated.
 */
export async function migrateDatabase(databaseUrl: string, paths: MigrationPaths = {}): Promise<string[]> {
  await ensureDatabase(databaseUrl);
  await refuseNewer(databaseUrl, paths.migrationsDir);
  const schemaPath = paths.schemaPath ?? DEFAULT_SCHEMA_PATH;
  return withSchemaEngine({ databaseUrl, schemaPath }, async (engine) => {
    const migrationsList = await readMigrations(paths.migrationsDir ?? DEFAULT_MIGRATIONS_DIR);
    const result = await engine.applyMigrations({ migrationsList, filters: NO_FILTERS });
    return result.appliedMigrationNames;
  });
}

/**
 * SQL that would take the migrations' end state to schema.prisma; '' when
 * they agree.
 */
export async function diffMigrationsToSchema(databaseUrl: string, paths: MigrationPaths = {}): Promise<string> {
  const schemaPath = paths.schemaPath ?? DEFAULT_SCHEMA_PATH;
  // The engine replays the migrations in a temporary shadow database, which
  // it creates through this connection.
  await ensureDatabase(databaseUrl);
  return withSchemaEngine({ databaseUrl, schemaPath }, async (engine) => {
    const migrations = await readMigrations(paths.migrationsDir ?? DEFAULT_MIGRATIONS_DIR);
    const from =
      migrations.migrationDirectories.length === 0
        ? ({ tag: 'empty' } as const)
        : ({ tag: 'migrations', ...migrations } as const);
    const result = await engine.diff({
      from,
      to: { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: await readFile(schemaPath, 'utf8') }] },
      script: true,
      exitCode: null,
      filters: NO_FILTERS,
    });
    return meaningfulSql(result.stdout);
  });
}

/**
 * SQL that would take the live database to schema.prisma; '' when the
 * database matches (the drift check after db:migrate).
 */
export async function diffDatabaseToSchema(databaseUrl: string, paths: MigrationPaths = {}): Promise<string> {
  const schemaPath = paths.schemaPath ?? DEFAULT_SCHEMA_PATH;
  return withSchemaEngine({ databaseUrl, schemaPath }, async (engine) => {
    const files = [{ path: schemaPath, content: await readFile(schemaPath, 'utf8') }];
    const result = await engine.diff({
      from: { tag: 'schemaDatasource', files, configDir: path.dirname(schemaPath) },
      to: { tag: 'schemaDatamodel', files },
      script: true,
      exitCode: null,
      filters: NO_FILTERS,
    });
    return meaningfulSql(result.stdout);
  });
}

// The engine writes this comment, not an empty string, when nothing differs.
const EMPTY_MIGRATION = '-- This is an empty migration.';

function meaningfulSql(stdout: string | null): string {
  const sql = (stdout ?? '').trim();
  return sql === EMPTY_MIGRATION ? '' : sql;
}
