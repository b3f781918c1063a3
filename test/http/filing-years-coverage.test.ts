import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { computeFilingFigures } from '../../src/export/filing/compute-filing-figures.ts';
import { readFiling } from '../../src/export/filing/filing-figures-store.ts';
import { filingInputVersion } from '../../src/export/filing/filing-input-version.ts';
import { accountCoverage, filingYearsOf } from '../../src/http/filing-figures.ts';
import { STREAMS } from '../../src/streams/registry.ts';
import { insertAccount, insertCoverage, insertSpot } from '../export/seed.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const db = useTestDatabase('filingcoverage');
let pool: pg.Pool;
beforeAll(() => {
  pool = new pg.Pool({ connectionString: db.url });
});
afterAll(() => pool.end());

/**
 * The tax years page's gaps of the uk year 2026-27 for an account synced as `sync` says: the year's
 * summary carries lots in from the history before it, so each stream is judged from its first window.
 */
async function gapsOf2026(name: string, sync: (accountId: string) => Promise<void>) {
  const accountId = await insertAccount(db.url, name);
  await insertSpot(db.url, accountId, [
    { recordId: '1', coin: 'USDT', spotTaxType: 'Deposit', amount: '100', balance: '100', ts: '2025-04-10T00:00:00Z' },
  ]);
  await sync(accountId);
  const now = Date.parse('2027-06-01T00:00:00Z');
  // The figures as the worker stores them (computed as of `now`), their coverage read as a view does.
  await computeFilingFigures({ databaseUrl: db.url, accountId, method: 'uk' }, pool, () => now);
  const version = await filingInputVersion(pool, accountId, 'uk', undefined, now);
  const { current } = await readFiling(pool, accountId, 'uk', version);
  const input = { pool, accountId, now };
  const years = filingYearsOf(input, 'uk', current!, false, await accountCoverage(input));
  return years.find((y) => y.year.label === '2026-27')!.gaps.map((g) => g.stream);
}

describe('the tax years page judges a year’s coverage as its export does', () => {
  it('a wallet ledger whose history starts later is no gap before its first window; one that stops is', async () => {
    const others = STREAMS.filter((s) => s !== 'margin-ledger');
    // Spot and the rest from January; the margin ledger's first window is May's (its own grid).
    const late = await gapsOf2026('late-margin', async (id) => {
      await insertCoverage(db.url, id, '2025-01-01T00:00:00Z', '2027-06-01T00:00:00Z', others);
      await insertCoverage(db.url, id, '2025-05-01T00:00:00Z', '2027-06-01T00:00:00Z', ['margin-ledger']);
    });
    expect(late).toEqual([]);
    // The margin ledger read from January, but not from February to May: a gap of that stream.
    const holed = await gapsOf2026('holed-margin', async (id) => {
      await insertCoverage(db.url, id, '2025-01-01T00:00:00Z', '2027-06-01T00:00:00Z', others);
      await insertCoverage(db.url, id, '2025-01-01T00:00:00Z', '2025-02-01T00:00:00Z', ['margin-ledger']);
      await insertCoverage(db.url, id, '2025-05-01T00:00:00Z', '2027-06-01T00:00:00Z', ['margin-ledger']);
    });
    expect(new Set(holed)).toEqual(new Set(['margin-ledger']));
  });

  it('each scope is judged from its own first window: a product type the horizon narrowed seconds later is no gap', async () => {
    const others = STREAMS.filter((s) => s !== 'futures-ledger');
    const ledger = ['futures-ledger'] as const;
    const narrowed = await gapsOf2026('narrowed-scope', async (id) => {
      await insertCoverage(db.url, id, '2025-01-01T00:00:00Z', '2027-06-01T00:00:00Z', others);
      await insertCoverage(db.url, id, '2025-01-01T00:00:00Z', '2027-06-01T00:00:00Z', ledger, ['USDT-FUTURES']);
      await insertCoverage(db.url, id, '2025-01-01T00:00:12Z', '2027-06-01T00:00:00Z', ledger, [
        'USDC-FUTURES',
        'COIN-FUTURES',
      ]);
    });
    expect(narrowed).toEqual([]);
    const holed = await gapsOf2026('holed-scope', async (id) => {
      await insertCoverage(db.url, id, '2025-01-01T00:00:00Z', '2027-06-01T00:00:00Z', others);
      await insertCoverage(db.url, id, '2025-01-01T00:00:00Z', '2027-06-01T00:00:00Z', ledger, ['USDT-FUTURES']);
      await insertCoverage(db.url, id, '2025-01-01T00:00:12Z', '2025-02-01T00:00:00Z', ledger, ['USDC-FUTURES']);
      await insertCoverage(db.url, id, '2025-05-01T00:00:00Z', '2027-06-01T00:00:00Z', ledger, ['USDC-FUTURES']);
      await insertCoverage(db.url, id, '2025-01-01T00:00:00Z', '2027-06-01T00:00:00Z', ledger, ['COIN-FUTURES']);
    });
    expect(holed).toEqual(['futures-ledger']);
  });

  it('closed positions count where the walk reads them: before the futures ledger vouches for the results', async () => {
    const others = STREAMS.filter((s) => s !== 'positions' && s !== 'futures-ledger');
    const gaps = (ledgerFrom: string) =>
      gapsOf2026(`positions-${ledgerFrom.slice(0, 7)}`, async (id) => {
        await insertCoverage(db.url, id, '2025-01-01T00:00:00Z', '2027-06-01T00:00:00Z', others);
        await insertCoverage(db.url, id, ledgerFrom, '2027-06-01T00:00:00Z', ['futures-ledger']);
        // Positions read only from the summer of 2026 (their 3-month horizon).
        await insertCoverage(db.url, id, '2026-07-01T00:00:00Z', '2027-06-01T00:00:00Z', ['positions']);
      });
    // The ledger from January 2025: positions never matter.
    expect(await gaps('2025-01-01T00:00:00Z')).toEqual([]);
    // The ledger only from June 2026: the 2026-27 year's April and May are a gap of the ledger, and
    // their futures results would come from closed positions, which were never read there either.
    expect([...new Set(await gaps('2026-06-01T00:00:00Z'))]).toEqual(['futures-ledger', 'positions']);
  });
});
