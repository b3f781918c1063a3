import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

import type { MigrationList } from '@prisma/schema-engine-wasm/schema_engine_bg';

import { PROJECT_ROOT } from '../../config/project-root.ts';

export { PROJECT_ROOT };
export const DEFAULT_SCHEMA_PATH = path.join(PROJECT_ROOT, 'prisma/schema.prisma');
export const DEFAULT_MIGRATIONS_DIR = path.join(PROJECT_ROOT, 'prisma/migrations');
const LOCKFILE = 'migration_lock.toml';

/** The migrations of this build, oldest first: the folder names in prisma/migrations. */
export async function migrationNames(baseDir = DEFAULT_MIGRATIONS_DIR): Promise<string[]> {
  const entries = existsSync(baseDir) ? await readdir(baseDir, { withFileTypes: true }) : [];
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/**
 * Reads prisma/migrations in the form the engine expects. Directory paths are
 * relative to baseDir so `_prisma_migrations.migration_name` holds the bare
 * folder name, as `prisma migrate deploy` records it.
 */
export async function readMigrations(baseDir = DEFAULT_MIGRATIONS_DIR): Promise<MigrationList> {
  const lockPath = path.join(baseDir, LOCKFILE);
  const migrationDirectories = await Promise.all(
    (await migrationNames(baseDir)).map(async (name) => {
      const file = path.join(baseDir, name, 'migration.sql');
      const content = existsSync(file)
        ? { tag: 'ok' as const, value: await readFile(file, 'utf8') }
        : { tag: 'error' as const, value: `${file} is missing` };
      return { path: name, migrationFile: { path: 'migration.sql', content } };
    }),
  );
  return {
    baseDir,
    lockfile: { path: LOCKFILE, content: existsSync(lockPath) ? await readFile(lockPath, 'utf8') : null },
    shadowDbInitScript: '',
    migrationDirectories,
  };
}
