import { writeFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { importCostBasis } from '../../src/accounting/cost-basis/cost-basis-import.ts';
import { computeFilingFigures } from '../../src/export/filing/compute-filing-figures.ts';
import { readFiling } from '../../src/export/filing/filing-figures-store.ts';
import { filingInputVersion } from '../../src/export/filing/filing-input-version.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { insertAccount, insertSpot } from './seed.ts';

/**
 * The tax years page's store (src/export/filing): figures are stored per input version, and any
 * change to a history or a supplied figure moves the version, so the stored figures stop being the
 * current ones until the worker computes the new; the figures then follow the change.
 */
const db = useTestDatabase('filingstore');
let pool: pg.Pool;
let dir: string;
// A day in the 2025-26 UK tax year, after every record below: the figures run to it.
const NOW = Date.parse('2025-06-01T12:00:00Z');
let order = 0;

function trade(day: string, give: [string, string], get: [string, string]) {
  order += 1;
  const id = `t${order}`;
  const ts = `${day}T10:00:00.000Z`;
  return [
    { recordId: `${id}a`, coin: give[1], spotTaxType: 'Sell', amount: `-${give[0]}`, bizOrderId: id, ts },
    { recordId: `${id}b`, coin: get[1], spotTaxType: 'Sell', amount: get[0], bizOrderId: id, ts },
  ];
}

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  dir = await mkdtemp(path.join(tmpdir(), 'filing-store-'));
});
afterAll(async () => {
  await pool.end();
  await rm(dir, { recursive: true, force: true });
});

const version = (accountId: string) => filingInputVersion(pool, accountId, 'uk', undefined, NOW);
const compute = (accountId: string) =>
  computeFilingFigures({ databaseUrl: db.url, accountId, method: 'uk' }, pool, () => NOW);

/** The 2024-25 total row of the current figures (undefined: none stored for the current version). */
async function current2024(accountId: string) {
  const { current } = await readFiling(pool, accountId, 'uk', await version(accountId));
  return current?.summary?.years['2024-25']?.find((r) => r.level === 'total');
}

describe('filing figures per input version', () => {
  it('a change to a history moves the version: the stored figures are no longer current, and the new ones follow it', async () => {
    const id = await insertAccount(db.url, 'history-change');
    await insertSpot(db.url, id, [
      ...trade('2024-05-01', ['1000', 'GBP'], ['10', 'SOL']),
      ...trade('2024-06-03', ['4', 'SOL'], ['600', 'GBP']),
    ]);
    const first = await compute(id);
    expect(first).toMatchObject({ current: true, skipped: false });
    expect(await current2024(id)).toMatchObject({ disposals: '1', proceeds: '600' });
    // Asked again with nothing changed: the stored figures are the current ones, nothing walked.
    expect(await compute(id)).toMatchObject({ inputVersion: first.inputVersion, skipped: true });

    await insertSpot(db.url, id, trade('2024-07-04', ['6', 'SOL'], ['450', 'GBP']));
    const moved = await version(id);
    expect(moved).not.toBe(first.inputVersion);
    const lookup = await readFiling(pool, id, 'uk', moved);
    // Nothing is current; the newest stored figures (shown as of their time) are the old version's.
    expect(lookup.current).toBeUndefined();
    expect(lookup.newest?.inputVersion).toBe(first.inputVersion);
    expect(await current2024(id)).toBeUndefined();

    expect(await compute(id)).toMatchObject({ inputVersion: moved, current: true, skipped: false });
    expect(await current2024(id)).toMatchObject({ disposals: '2', proceeds: '1050' });
  });

  it('a supplied cost moves the version, and the figures then count it', async () => {
    const id = await insertAccount(db.url, 'supplied-change');
    await insertSpot(db.url, id, [
      { recordId: 'd1', coin: 'ETH', spotTaxType: 'Deposit', amount: '1', ts: '2024-05-01T10:00:00.000Z' },
      ...trade('2024-06-03', ['1', 'ETH'], ['100', 'GBP']),
    ]);
    const before = await compute(id);
    const unknown = await current2024(id);
    expect(unknown?.allowable_costs).toBe('0');

    const file = path.join(dir, 'eth-cost.csv');
    await writeFile(file, 'coin,quantity,acquired_at,cost,currency,source\nETH,1,2024-04-20,40,GBP,bank-statement\n');
    const client = await pool.connect();
    try {
      await importCostBasis(client, id, file);
    } finally {
      client.release();
    }
    expect(await version(id)).not.toBe(before.inputVersion);
    expect(await current2024(id)).toBeUndefined();
    await compute(id);
    expect(await current2024(id)).toMatchObject({ proceeds: '100', allowable_costs: '40' });
  });

  it('a change to a supplied import itself (a withdrawal marks its row) moves the version', async () => {
    const id = await insertAccount(db.url, 'import-marked');
    await insertSpot(db.url, id, [
      { recordId: 'd1', coin: 'ETH', spotTaxType: 'Deposit', amount: '1', ts: '2024-05-01T10:00:00.000Z' },
    ]);
    const file = path.join(dir, 'eth-cost-2.csv');
    await writeFile(file, 'coin,quantity,acquired_at,cost,currency,source\nETH,1,2024-04-20,40,GBP,bank-statement\n');
    const client = await pool.connect();
    try {
      await importCostBasis(client, id, file);
    } finally {
      client.release();
    }
    const before = await version(id);
    // Any column of the import's row, whatever later migrations add (withdrawn_at): here its sources.
    await pool.query(`UPDATE cost_basis_import SET sources = sources || ' (withdrawn)' WHERE account_id = $1`, [id]);
    expect(await version(id)).not.toBe(before);
  });

  it('another account’s change leaves the version alone; a price import (every account’s) moves it', async () => {
    const a = await insertAccount(db.url, 'quiet-a');
    const b = await insertAccount(db.url, 'busy-b');
    await insertSpot(db.url, a, trade('2024-05-01', ['100', 'GBP'], ['1', 'SOL']));
    const before = await version(a);
    await insertSpot(db.url, b, trade('2024-05-02', ['100', 'GBP'], ['1', 'SOL']));
    expect(await version(a)).toBe(before);
    await pool.query(
      `INSERT INTO price (time, base, quote, price, source) VALUES ('2024-05-01T00:00:00Z', 'SOL', 'GBP', 100, 'test')`,
    );
    expect(await version(a)).not.toBe(before);
  });
});
