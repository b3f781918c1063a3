import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';

import { dropDatabase } from '../../src/db/ensure-database.ts';
import { migrateDatabase } from '../../src/db/migrations.ts';
import { createPrisma, type PrismaClient } from '../../src/db/prisma.ts';
import { createFromTemplate } from './template-database.ts';

const SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

/** A URL to a database of its own on the test server, never used before. */
export function freshDatabaseUrl(label = 'test'): string {
  const url = new URL(SERVER_URL);
  url.pathname = `/ll_${label
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(0, 20)}_${randomBytes(5).toString('hex')}`;
  return url.toString();
}

/**
 * Creates the database `url` names, migrated: a copy of the suite's migrated template
 * (template-database.ts), or migrated here when there is none.
 */
export async function createMigratedDatabase(url: string): Promise<void> {
  if (!(await createFromTemplate(url))) await migrateDatabase(url);
}

/**
 * Drops the test database once the file's own connections have gone. A pg pool's `end()` resolves
 * before its clients' goodbye reaches the server; `DROP ... WITH (FORCE)` would then terminate a
 * backend whose client is still listening, and that client's error surfaces as an unhandled error
 * of the file. Waits up to 3 s, then forces.
 */
async function dropWhenClosed(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  try {
    for (let waited = 0; waited < 3000; waited += 50) {
      const { rows } = await admin.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
        [name],
      );
      if (rows[0]!.n === 0) break;
      await sleep(50);
    }
  } finally {
    await admin.end();
  }
  await dropDatabase(url);
}

export interface TestDatabase {
  readonly url: string;
  readonly prisma: PrismaClient;
}

/**
 * Gives the calling test file its own migrated database, created before its
 * tests and dropped after them, so files run in parallel without sharing rows.
 */
export function useTestDatabase(label?: string): TestDatabase {
  const url = freshDatabaseUrl(label);
  let prisma: PrismaClient | undefined;
  beforeAll(async () => {
    await createMigratedDatabase(url);
    prisma = createPrisma(url);
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    await dropWhenClosed(url);
  });
  return {
    url,
    get prisma(): PrismaClient {
      if (!prisma) throw new Error('the test database is ready only inside tests and hooks');
      return prisma;
    },
  };
}
