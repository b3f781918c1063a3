import { type Cluster, Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SecretBox } from '../../src/crypto/secret-box.ts';
import { createRootLogger, setRootLogger } from '../../src/logging/logger.ts';
import { revealSecret } from '../../src/management/mirror-store.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { PATHS, runToEnd, subName } from './support.ts';

/**
 * Acceptance 4: run the management flows (keys created, modified, revealed,
 * lost answers, failures) with every log line captured, then look for each
 * plaintext secret in every text and JSON column of every table, in every
 * Redis key and value, and in the logs.
 */
const db = useTestDatabase('mgmtsecrets');
const logLines: string[] = [];
let pipeline: Pipeline;

beforeAll(async () => {
  // Every logger in this process writes here, at the most talkative level.
  setRootLogger(
    createRootLogger({ level: 'trace', destination: { write: (line: string) => void logLines.push(line) } }),
  );
  pipeline = await startPipeline({ databaseUrl: db.url });
  pipeline.startWorkers();
});
afterAll(async () => {
  await pipeline?.close();
});

const KEY_PASSPHRASE = 'Scan2026keyPass';
const BATCH_PASSPHRASE = 'Scan2026batchPass';

interface Hit {
  where: string;
  secret: string;
}

async function scanPostgres(url: string, needles: readonly string[]): Promise<Hit[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const columns = await client.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = 'public'
          AND (data_type IN ('text', 'character varying', 'character', 'json', 'jsonb')
               OR (data_type = 'ARRAY' AND udt_name IN ('_text', '_varchar')))`,
    );
    const hits: Hit[] = [];
    for (const { table_name: table, column_name: column } of columns.rows) {
      const values = await client.query<{ v: string | null }>(`SELECT "${column}"::text AS v FROM "${table}"`);
      for (const { v } of values.rows) {
        for (const secret of needles) if (v?.includes(secret)) hits.push({ where: `${table}.${column}`, secret });
      }
    }
    return hits;
  } finally {
    await client.end();
  }
}

/** Every key of the Redis server (other tests' too) with all its values, as text. */
async function redisTexts(connection: Redis | Cluster): Promise<Map<string, string>> {
  // SCAN walks one server: this test runs against the single Redis of the test setup.
  if (!(connection instanceof Redis)) throw new Error('redisTexts reads a single Redis server, not a cluster');
  const redis = connection;
  const texts = new Map<string, string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      let value: unknown;
      if (type === 'string') value = await redis.getBuffer(key).then((b) => b?.toString('latin1'));
      else if (type === 'hash') value = await redis.hgetall(key);
      else if (type === 'list') value = await redis.lrange(key, 0, -1);
      else if (type === 'set') value = await redis.smembers(key);
      else if (type === 'zset') value = await redis.call('ZRANGE', key, '0', '-1', 'WITHSCORES');
      else if (type === 'stream') value = await redis.xrange(key, '-', '+');
      texts.set(key, `${key} ${JSON.stringify(value ?? null)}`);
    }
  } while (cursor !== '0');
  return texts;
}

describe('no plaintext secret at rest or in the logs', () => {
  it('after creating, modifying, revealing and losing keys, no secret is in Postgres, Redis or the logs', async () => {
    const { sim } = pipeline;
    const sub = await runToEnd(pipeline, { command: 'subaccount_create', params: { username: 'scandesk' } });
    const subUid = (sub.result as { subAccount: { subUid: string } }).subAccount.subUid;
    const created = await runToEnd(pipeline, {
      command: 'apikey_create',
      params: { subAccountUid: subUid, passphrase: KEY_PASSPHRASE, label: 'scan', permList: ['read'] },
    });
    expect(created.status).toBe('succeeded');
    const apiKey = (created.result as { apiKey: { apiKey: string } }).apiKey.apiKey;
    const batch = await runToEnd(pipeline, {
      command: 'subaccount_batch_create',
      params: {
        items: [0, 1, 2].map((k) => ({
          subAccountName: subName(70_000 + k * 11),
          passphrase: BATCH_PASSPHRASE,
          label: 'scan',
          permList: ['spot_trade'],
        })),
      },
    });
    expect(batch.status).toBe('succeeded');
    // A modify answer carries the secret again.
    const modified = await runToEnd(pipeline, {
      command: 'apikey_modify',
      params: {
        subAccountUid: subUid,
        subAccountApiKey: apiKey,
        passphrase: KEY_PASSPHRASE,
        label: 'scan2',
        ipList: [],
      },
    });
    expect(modified.status).toBe('succeeded');
    // A refused modify (wrong passphrase): the error path is logged and audited too.
    const refused = await runToEnd(pipeline, {
      command: 'apikey_modify',
      params: { subAccountUid: subUid, subAccountApiKey: apiKey, passphrase: 'Wrong2026pass', label: 'x', ipList: [] },
    });
    expect(refused.status).toBe('failed');
    // A key created by a request whose answer is lost: its secret never reaches ledgerline at all.
    sim.faults.set({ applyThenReset: { path: PATHS.createKey, count: 1 } });
    const lost = await runToEnd(pipeline, {
      command: 'apikey_create',
      params: { subAccountUid: subUid, passphrase: KEY_PASSPHRASE, label: 'lost', permList: [] },
    });
    sim.faults.clear();
    expect(lost.status).toBe('ambiguous');
    sim.placeOrders([{ category: 'SPOT', symbol: 'BTCUSDT', orderId: 'scan-1', clientOid: 'scan-c1' }]);
    await runToEnd(pipeline, {
      command: 'orders_batch_cancel',
      params: { orders: [{ symbol: 'BTCUSDT', clientOid: 'scan-c1' }] },
    });
    // One secret is shown (and so leaves the database).
    const box = new SecretBox(pipeline.runtime.config.masterKey);
    const shown = await revealSecret(db.prisma, box, pipeline.accountId, apiKey);

    const keys = sim.state().subAccounts.flatMap((s) => s.apiKeys.map((k) => sim.context.accounts.key(k.apiKey)!));
    const ours = keys.filter((k) => k.passphrase === KEY_PASSPHRASE || k.passphrase === BATCH_PASSPHRASE);
    expect(ours).toHaveLength(5);
    expect(ours.map((k) => k.secretKey)).toContain(shown);
    const secrets = [
      ...ours.map((k) => k.secretKey),
      KEY_PASSPHRASE,
      BATCH_PASSPHRASE,
      'Wrong2026pass',
      sim.demo.secretKey,
      sim.demo.passphrase,
    ];

    const inPostgres = await scanPostgres(db.url, secrets);
    const inRedis = [...(await redisTexts(pipeline.runtime.redis)).entries()].flatMap(([key, text]) =>
      secrets.filter((secret) => text.includes(secret)).map((secret) => ({ where: key, secret })),
    );
    const logs = logLines.join('');
    const inLogs = secrets.filter((secret) => logs.includes(secret));
    expect(inPostgres).toEqual([]);
    expect(inRedis).toEqual([]);
    expect(inLogs).toEqual([]);

    // The scans do reach what they search: non-secret values of the same flows are found in each place.
    const controls = await scanPostgres(db.url, [apiKey]);
    expect(new Set(controls.map((hit) => hit.where))).toEqual(
      new Set([
        'sub_account_api_key.api_key',
        'management_request.body',
        'management_request.response',
        'management_action.parameters',
        'management_action.result',
      ]),
    );
    const redisWithAction = [...(await redisTexts(pipeline.runtime.redis)).entries()].filter(
      ([key, text]) => key.startsWith(pipeline.runtime.prefix) && text.includes(created.id),
    );
    expect(redisWithAction.length).toBeGreaterThan(0);
    expect(logs).toContain(created.id);
    expect(logs).toContain('"level":20');
    expect(logLines.length).toBeGreaterThan(20);
  }, 60_000);
});
