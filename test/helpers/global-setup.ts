import pg from 'pg';

import { compiledCliEntry } from './compiled-cli.ts';
import { ensureTemplateDatabase } from './template-database.ts';

/**
 * Runs once before the suite: fails fast with a clear message when Postgres
 * or Redis is not answering, instead of every test timing out on its own.
 */
export default async function globalSetup(): Promise<void> {
  const base = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const client = new pg.Client({ connectionString: base, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.end();
  } catch (error) {
    throw new Error(`Postgres is not answering at ${base}: ${(error as Error).message}`, { cause: error });
  }
  const { Redis } = await import('ioredis');
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(`Redis is not answering: ${(error as Error).message}`, { cause: error });
  } finally {
    redis.disconnect();
  }
  // Once here rather than in the first test that starts the CLI, which would pay it inside its timeout.
  compiledCliEntry();
  // The database every test file copies instead of migrating its own.
  await ensureTemplateDatabase(base);
}
