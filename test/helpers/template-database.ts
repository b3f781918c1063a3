import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import pg from 'pg';

import { databaseName, quoteIdent, withDatabase } from '../../src/db/ensure-database.ts';
import { migrateDatabase } from '../../src/db/migrations.ts';

const MIGRATIONS = path.resolve(import.meta.dirname, '../../prisma/migrations');
/** A template no run has asked for in this long is dropped (another checkout's migrations, an old build's). */
const STALE_MS = 24 * 60 * 60 * 1000;

/**
 * A test database is a copy of one migrated once per suite run: `migrateDatabase` through the schema
 * engine took 2-4 s per file (nearly a hundred files), Postgres copies a template in a fraction of
 * a second. The template's name is a stamp of prisma/migrations (every folder's name and SQL), so a
 * new or edited migration gets a template of its own and no test runs on a stale schema; checkouts
 * with the same migrations (worktrees, CI) share it. Its rows in `_prisma_migrations` are copied
 * too, so a copy is exactly what `migrate` leaves: the migration path itself is tested by the
 * files that migrate their own databases (test/integration/migrations.test.ts, the CLI's migrate).
 */
export function templateName(): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(MIGRATIONS).sort()) {
    hash.update(`${name}\0`);
    const file = path.join(MIGRATIONS, name, 'migration.sql');
    try {
      hash.update(readFileSync(file));
    } catch {
      // migration_lock.toml, or a folder without its SQL: the name alone is stamped.
    }
  }
  return `ll_template_${hash.digest('hex').slice(0, 16)}`;
}

async function withAdmin<T>(serverUrl: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/**
 * Makes sure the template of this checkout's migrations exists on the server (global-setup.ts, once
 * per run): migrated under a name of its own, then renamed, so a run never copies a half-migrated
 * template and two runs building it at once both end with one. Connections to it are refused
 * afterwards (Postgres copies a database only while nobody is connected to it).
 */
export async function ensureTemplateDatabase(serverUrl: string): Promise<string> {
  const name = templateName();
  const exists = await withAdmin(serverUrl, async (admin) => {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return (found.rowCount ?? 0) > 0;
  });
  if (!exists) {
    const building = `${name}_${process.pid}`;
    await migrateDatabase(withDatabase(serverUrl, building));
    await withAdmin(serverUrl, async (admin) => {
      await admin.query(`ALTER DATABASE ${quoteIdent(building)} WITH ALLOW_CONNECTIONS false`);
      try {
        await admin.query(`ALTER DATABASE ${quoteIdent(building)} RENAME TO ${quoteIdent(name)}`);
      } catch (error) {
        // Another run renamed its own first: the two are the same.
        if ((error as { code?: string }).code !== '42P04') throw error;
        await admin.query(`DROP DATABASE ${quoteIdent(building)}`);
      }
    });
  }
  await withAdmin(serverUrl, async (admin) => {
    await admin.query(`COMMENT ON DATABASE ${quoteIdent(name)} IS ${pg.escapeLiteral(`used ${Date.now()}`)}`);
    await dropStaleTemplates(admin, name);
  });
  return name;
}

async function dropStaleTemplates(admin: pg.Client, current: string): Promise<void> {
  const templates = await admin.query<{ datname: string; comment: string | null }>(
    `SELECT datname, shobj_description(oid, 'pg_database') AS comment FROM pg_database
      WHERE datname LIKE 'll\\_template\\_%' AND datname <> $1`,
    [current],
  );
  for (const { datname, comment } of templates.rows) {
    const used = Number(/^used (\d+)$/.exec(comment ?? '')?.[1] ?? Number.NaN);
    // A template being built has no comment yet: only the ones known to be old go.
    if (Number.isFinite(used) && Date.now() - used > STALE_MS) {
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(datname)}`).catch(() => undefined);
    }
  }
}

/**
 * Creates the database `url` names as a copy of the template; false when there is no template
 * (a run without global-setup.ts), for the caller to migrate it instead.
 */
export async function createFromTemplate(url: string): Promise<boolean> {
  const name = templateName();
  return withAdmin(url, async (admin) => {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!found.rowCount) return false;
    await admin.query(`CREATE DATABASE ${quoteIdent(databaseName(url))} TEMPLATE ${quoteIdent(name)}`);
    return true;
  });
}
