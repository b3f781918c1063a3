import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { pruneInputChanges, SHARED_ROWS_BEFORE_PRUNE } from '../../src/accounting/gains/gains-change-prune.ts';
import type { CheckpointKey } from '../../src/accounting/gains/gains-checkpoint-key.ts';
import { findCheckpoint, inputCounts, saveCheckpoints } from '../../src/accounting/gains/gains-checkpoint-store.ts';
import { lotMethodOf } from '../../src/accounting/gains/gains-method.ts';
import { LotEngine } from '../../src/accounting/lots/lot-engine.ts';
import { BEGIN_SNAPSHOT } from '../../src/booking/ledger-entry-cursor.ts';
import { insertAccount, insertSpot, type SpotRow } from '../export/seed.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

/**
 * The gains change log is pruned once checkpoints cover it (gains-change-prune.ts): its rows are
 * merged between neighbouring checkpoint instants, so the log stays one row per interval whatever
 * the number of writes, every stored checkpoint stays exactly as valid as before, a change after a
 * prune still invalidates, and no interleaving of a walk, a change and a prune lets a checkpoint
 * be used whose state missed a change.
 */
const db = useTestDatabase('gainsprune');
let accountId: string;
let key: CheckpointKey;
let client: pg.Client;

const ms = (iso: string) => Date.parse(`${iso}T00:00:00.000Z`);
const T1 = ms('2026-01-10');
const T2 = ms('2026-01-20');
const T3 = ms('2026-02-01');
let records = 0;
/** One Interest record a day from `from`, each stored by its own statement (a log row each). */
const daily = (from: string, days: number): SpotRow[] =>
  Array.from({ length: days }, (_, d) => ({
    recordId: `r${++records}`,
    coin: 'BTC',
    spotTaxType: 'Interest',
    amount: '0.001',
    ts: new Date(ms(from) + d * 86_400_000 + 3_600_000).toISOString(),
  }));

const logRows = async (account: string | null) =>
  (
    await client.query<{ n: number; weight: string }>(
      `SELECT count(*)::int AS n, COALESCE(sum(weight), 0)::text AS weight FROM gains_input_change
        WHERE account_id IS NOT DISTINCT FROM $1::uuid`,
      [account],
    )
  ).rows[0]!;

/** In a snapshot of its own, as a walk reads: the instant of the checkpoint a walk starting at `atMs` uses. */
async function usable(atMs: number): Promise<number | null> {
  await client.query(BEGIN_SNAPSHOT);
  try {
    return (await findCheckpoint(client, key, atMs))?.asOfMs ?? null;
  } finally {
    await client.query('COMMIT');
  }
}

async function countsNow(instants: number[]): Promise<string[]> {
  await client.query(BEGIN_SNAPSHOT);
  try {
    return await inputCounts(client, accountId, instants);
  } finally {
    await client.query('COMMIT');
  }
}

const state = () => new LotEngine(lotMethodOf('fifo'), 'USDT').snapshot();

/** A walk's checkpoints at `instants`, counted in the snapshot `walk` has open, stored after it ends. */
async function storeFrom(walk: pg.Client, instants: number[], counts: string[]): Promise<void> {
  await walk.query('COMMIT');
  await saveCheckpoints(
    walk,
    key,
    instants.map((asOfMs, i) => ({ asOfMs, state: state(), inputCount: counts[i]! })),
  );
}

beforeAll(async () => {
  accountId = await insertAccount(db.url, 'prune');
  key = { accountId, method: 'fifo', currency: 'USDT', toleranceMs: 0, walkVersion: 'prune-test' };
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});

afterAll(async () => {
  await client.end();
});

describe('pruning the gains change log', () => {
  it('holds one row per interval between checkpoint instants, and every checkpoint stays valid', async () => {
    await insertSpot(db.url, accountId, daily('2026-01-01', 40));
    expect((await logRows(accountId)).n).toBe(40);
    const counts = await countsNow([T1, T2, T3]);
    expect(
      await saveCheckpoints(
        client,
        key,
        [T1, T2, T3].map((asOfMs, i) => ({ asOfMs, state: state(), inputCount: counts[i]! })),
      ),
    ).toBe(3);

    expect(await pruneInputChanges(client, accountId)).toEqual({ removed: 40, written: 4 });
    // (-inf, T1], (T1, T2], (T2, T3] and after T3: one row each, the 40 changes' weight kept.
    expect(await logRows(accountId)).toEqual({ n: 4, weight: '40' });
    expect(await countsNow([T1, T2, T3])).toEqual(counts);
    expect(await usable(T1)).toBe(T1);
    expect(await usable(T2)).toBe(T2);
    expect(await usable(T3)).toBe(T3);

    // Writes after the last checkpoint, however many, end in its last interval's one row.
    await insertSpot(db.url, accountId, daily('2026-02-10', 30));
    expect((await logRows(accountId)).n).toBe(34);
    await pruneInputChanges(client, accountId);
    expect(await logRows(accountId)).toEqual({ n: 4, weight: '70' });
    expect(await usable(T3)).toBe(T3);
    // A second prune finds nothing to merge and rewrites nothing.
    expect(await pruneInputChanges(client, accountId)).toEqual({ removed: 0, written: 0 });
  });

  it('a change after the prune still invalidates the checkpoints after it, and another prune does not revive them', async () => {
    await insertSpot(db.url, accountId, daily('2026-01-15', 1));
    expect(await usable(T3)).toBe(T1);
    expect(await usable(T2)).toBe(T1);
    await pruneInputChanges(client, accountId);
    expect((await logRows(accountId)).n).toBe(4);
    expect(await usable(T3)).toBe(T1);
    expect(await usable(T2)).toBe(T1);
  });

  it('a walk whose snapshot predates a change and a prune never stores a checkpoint that is used', async () => {
    // A new instant inside the interval (T2, T3] that the prune merges.
    const T4 = ms('2026-01-25');
    const walk = new pg.Client({ connectionString: db.url });
    await walk.connect();
    try {
      // The walk's snapshot counts at T4; then a change before T4 commits, and a prune merges it.
      await walk.query(BEGIN_SNAPSHOT);
      const [count] = await inputCounts(walk, accountId, [T4]);
      await insertSpot(db.url, accountId, daily('2026-01-22', 1));
      const pruned = await pruneInputChanges(client, accountId);
      expect(pruned.removed).toBeGreaterThan(0);
      await storeFrom(walk, [T4], [count!]);
      // Stored, with the state before the change: it must not be used.
      expect(await usable(T4)).not.toBe(T4);

      // A walk whose snapshot predates a prune alone, and a change after it: not used either.
      const T5 = ms('2026-01-27');
      await walk.query(BEGIN_SNAPSHOT);
      const [before] = await inputCounts(walk, accountId, [T5]);
      await insertSpot(db.url, accountId, daily('2026-02-03', 3));
      await pruneInputChanges(client, accountId);
      await storeFrom(walk, [T5], [before!]);
      await insertSpot(db.url, accountId, daily('2026-01-26', 1));
      await pruneInputChanges(client, accountId);
      expect(await usable(T5)).not.toBe(T5);
    } finally {
      await walk.end();
    }
  });

  it('merges the rows of every account (imported prices) once enough accumulate', async () => {
    const price = (day: number) =>
      client.query(
        `INSERT INTO price (time, base, quote, price, source) VALUES (timestamptz '2026-01-01' + $1::int * interval '1 day', 'BTC', 'USDT', 60000, 'daily')`,
        [day],
      );
    for (let day = 0; day < SHARED_ROWS_BEFORE_PRUNE; day++) await price(day);
    await pruneInputChanges(client, accountId);
    expect((await logRows(null)).n).toBe(SHARED_ROWS_BEFORE_PRUNE);
    await price(SHARED_ROWS_BEFORE_PRUNE);
    const counts = await countsNow([T1, T2, T3]);
    await pruneInputChanges(client, accountId);
    const shared = await logRows(null);
    const instants = Number(
      (await client.query<{ n: number }>('SELECT count(DISTINCT as_of)::int AS n FROM gains_checkpoint')).rows[0]!.n,
    );
    expect(shared.n).toBeLessThanOrEqual(instants + 1);
    expect(shared.weight).toBe(String(SHARED_ROWS_BEFORE_PRUNE + 1));
    expect(await countsNow([T1, T2, T3])).toEqual(counts);
  });
});
