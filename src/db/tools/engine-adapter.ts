import { randomUUID } from 'node:crypto';

import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { parse } from 'pg-connection-string';

import { openClient } from '../pg-connections.ts';

// Postgres' internal one-byte type "char" (OID 18), used by catalog columns
// such as pg_class.relkind, which the schema engine reads when it introspects.
const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

type QueryResultLike = { fields?: Array<{ dataTypeID: number }> };

/**
 * A pg client that reports "char" columns as text. @prisma/adapter-pg refuses
 * that type ("Column type 'char' could not be deserialized"), which breaks
 * every schema-engine command that introspects a database (diffs against the
 * shadow database included). pg already returns its values as strings, so
 * only the reported type changes.
 */
class CharAsTextClient extends pg.Client {
  override query(...args: unknown[]): never {
    // pg.Pool calls query with a callback, direct callers get a promise.
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (error: unknown, value: QueryResultLike) => callback(error, error ? value : reportCharAsText(value));
    }
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    if (result instanceof Promise) return result.then(reportCharAsText) as never;
    return result as never;
  }
}

function reportCharAsText(value: QueryResultLike): QueryResultLike {
  for (const field of value?.fields ?? []) {
    if (field.dataTypeID === PG_CHAR_OID) field.dataTypeID = PG_TEXT_OID;
  }
  return value;
}

type ConnectedAdapter = Awaited<ReturnType<PrismaPg['connect']>>;

/**
 * The stock adapter runs a migration's script by splitting it at every ";" and sending the pieces
 * one by one: a function body (`$$ ... ; ... $$`, the coverage triggers of migration
 * 20261126120642_sync_coverage) is cut apart ("unterminated dollar-quoted string"), and the pieces
 * run outside any transaction. This one sends the script whole, as Prisma's native engine does:
 * one simple-protocol query (no parameters), which Postgres runs as one implicit transaction, so a
 * migration applies entirely or not at all. Errors take the adapter's own way (`executeRaw`).
 */
function wholeScripts(adapter: ConnectedAdapter): ConnectedAdapter {
  adapter.executeScript = async (script: string) => {
    await adapter.executeRaw({ sql: script, args: [], argTypes: [] });
  };
  return adapter;
}

/**
 * The stock factory drops the shadow database while its own pool still holds
 * a connection to it ("is being accessed by other users"), leaving it behind.
 * This one closes the pool first and then drops it, forcefully.
 */
export class ShadowSafePrismaPg extends PrismaPg {
  readonly #pgConfig: pg.PoolConfig;
  readonly #open = new Set<Awaited<ReturnType<PrismaPg['connect']>>>();

  constructor(config: pg.PoolConfig) {
    super(config);
    this.#pgConfig = config;
  }

  /**
   * The engine connects but never disposes its adapter, even when freed: its pool's idle client
   * kept a finished `ledgerline migrate` alive for pg's 10 s idle timeout. Each adapter is kept
   * here so that `disposeAll` can end its pool.
   */
  override async connect(): ReturnType<PrismaPg['connect']> {
    const adapter = wholeScripts(await super.connect());
    const dispose = adapter.dispose.bind(adapter);
    adapter.dispose = async () => {
      this.#open.delete(adapter);
      await dispose();
    };
    this.#open.add(adapter);
    return adapter;
  }

  /** Ends the pools of every adapter the engine left open. */
  async disposeAll(): Promise<void> {
    await Promise.all([...this.#open].map((adapter) => adapter.dispose()));
  }

  override async connectToShadowDb(): ReturnType<PrismaPg['connect']> {
    const database = `prisma_migrate_shadow_db_${randomUUID()}`;
    await this.#admin(`CREATE DATABASE "${database}"`);
    const adapter = wholeScripts(await new PrismaPg({ ...this.#pgConfig, database }).connect());
    const dispose = adapter.dispose.bind(adapter);
    adapter.dispose = async () => {
      await dispose();
      await this.#admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    };
    return adapter;
  }

  async #admin(sql: string): Promise<void> {
    const client = await openClient(this.#pgConfig);
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  }
}

/**
 * The adapter factory the schema engine runs on. The URL is split into
 * discrete fields because the adapter derives the shadow database's pool by
 * overriding `database` in this config, which a connectionString would win over.
 */
export function schemaEngineAdapter(databaseUrl: string): ShadowSafePrismaPg {
  const parsed = parse(databaseUrl);
  const config: pg.PoolConfig = {
    host: parsed.host ?? undefined,
    port: parsed.port ? Number(parsed.port) : undefined,
    user: parsed.user,
    password: parsed.password,
    database: parsed.database ?? undefined,
    Client: CharAsTextClient as unknown as typeof pg.Client,
  };
  if (parsed.ssl !== undefined && parsed.ssl !== false) config.ssl = parsed.ssl as pg.PoolConfig['ssl'];
  return new ShadowSafePrismaPg(config);
}
