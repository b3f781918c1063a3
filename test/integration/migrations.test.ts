import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';

import { dropDatabase } from '../../src/db/ensure-database.ts';
import { diffDatabaseToSchema, diffMigrationsToSchema, migrateDatabase } from '../../src/db/migrations.ts';
import { createMigration } from '../../src/db/tools/create-migration.ts';
import { DEFAULT_MIGRATIONS_DIR, DEFAULT_SCHEMA_PATH } from '../../src/db/tools/migrations-dir.ts';
import { freshDatabaseUrl } from '../helpers/test-database.ts';

const databases: string[] = [];
function newDatabase(label: string): string {
  const url = freshDatabaseUrl(label);
  databases.push(url);
  return url;
}

afterAll(async () => {
  for (const url of databases) await dropDatabase(url);
});

async function recordedMigrations(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ migration_name: string }>(
      'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY migration_name',
    );
    return result.rows.map((row) => row.migration_name);
  } finally {
    await client.end();
  }
}

describe('db:migrate', () => {
  it('creates the database, applies every migration once, and a second run applies nothing', async () => {
    const url = newDatabase('migrate');
    const folders = (await readdir(DEFAULT_MIGRATIONS_DIR, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(folders.length).toBeGreaterThan(0);

    expect(await migrateDatabase(url)).toEqual(folders);
    expect(await migrateDatabase(url)).toEqual([]);
    // Bare folder names, exactly as `prisma migrate deploy` records them.
    expect(await recordedMigrations(url)).toEqual(folders);
  });

  it('leaves no drift: the database and the migrations both equal schema.prisma', async () => {
    const url = newDatabase('drift');
    await migrateDatabase(url);
    expect(await diffDatabaseToSchema(url)).toBe('');
    expect(await diffMigrationsToSchema(url)).toBe('');
  });

  it('sees a schema change, and db:migration:create writes a migration that applies', async () => {
    const url = newDatabase('newfield');
    const work = await mkdtemp(path.join(os.tmpdir(), 'll-schema-'));
    try {
      const migrationsDir = path.join(work, 'migrations');
      await cp(DEFAULT_MIGRATIONS_DIR, migrationsDir, { recursive: true });
      const schemaPath = path.join(work, 'schema.prisma');
      const schema = await readFile(DEFAULT_SCHEMA_PATH, 'utf8');
      const changed = schema.replace(/(model Account \{\n)/, '$1  driftProbe          String?  @map("drift_probe")\n');
      expect(changed).not.toBe(schema);
      await writeFile(schemaPath, changed);

      const diff = await diffMigrationsToSchema(url, { schemaPath, migrationsDir });
      expect(diff).toMatch(/ALTER TABLE "account" ADD COLUMN\s+"drift_probe" TEXT/);

      const folder = await createMigration({ name: 'drift_probe', databaseUrl: url, schemaPath, migrationsDir });
      expect(folder).toBeDefined();
      expect(path.basename(folder!)).toMatch(/^\d{14}_drift_probe$/);

      const applied = await migrateDatabase(url, { schemaPath, migrationsDir });
      expect(applied.at(-1)).toBe(path.basename(folder!));
      expect(await diffDatabaseToSchema(url, { schemaPath })).toBe('');
      // Nothing left to write once the migration exists.
      expect(await createMigration({ name: 'again', databaseUrl: url, schemaPath, migrationsDir })).toBeUndefined();
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  it('refuses a migration name that would make a bad folder', async () => {
    await expect(createMigration({ name: 'Bad Name!', databaseUrl: newDatabase('badname') })).rejects.toThrow(
      /name: must be 1-60 characters/,
    );
  });
});
