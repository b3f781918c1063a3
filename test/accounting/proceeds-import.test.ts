import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';

import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';

import { importCostBasis } from '../../src/accounting/cost-basis/cost-basis-import.ts';
import { importPrices } from '../../src/accounting/prices/import-prices.ts';
import { importProceeds, listProceedsImports } from '../../src/accounting/proceeds/proceeds-import.ts';
import { ValidationError } from '../../src/errors/index.ts';
import { parseExportRequest } from '../../src/export/export-request.ts';
import { exportToFile } from '../../src/export/export-to-file.ts';
import { lackingProceeds } from '../../src/http/unknown-costs.ts';
import { insertAccount, parseCsv, withClient } from '../export/seed.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

/**
 * Unknown proceeds, never invented (docs/reports.md, "Unknown proceeds"): a P2P sell's record
 * states no fiat amount, so its proceeds stay empty (`review:unknown-proceeds`) until `ledgerline
 * proceeds import` supplies them from the bank statement; the market value is never put in
 * (HMRC CRYPTO22100: the consideration received; BMF 10.5.2022 Rn. 54: the Veräußerungspreis).
 * Supplied in pounds they state the uk figures, in euros the de ones: nothing is converted.
 */
const db = useTestDatabase('proceedsimport');
let account: string;
let other: string;
const dir = mkdtempSync(path.join(tmpdir(), 'proceeds-'));
const file = (name: string, text: string) => {
  const full = path.join(dir, name);
  writeFileSync(full, text);
  return full;
};

async function insertP2p(
  accountId: string,
  rows: { id: string; coin: string; type: string; total: string; ts: string }[],
) {
  await withClient(db.url, async (c) => {
    for (const r of rows) {
      await c.query(
        `INSERT INTO p2p_ledger_record (account_id, record_id, coin, p2p_tax_type, total, ts, raw)
         VALUES ($1, $2, $3, $4, $5, $6, '{}')`,
        [accountId, r.id, r.coin, r.type, r.total, r.ts],
      );
    }
  });
}

/** The year's total row of a filing summary, by column name; and the manifest's review counts. */
async function summary(method: 'uk' | 'de', from: string, to: string) {
  const request = parseExportRequest({ report: 'realized-gains-summary', accountId: account, from, to, method });
  const exported = await exportToFile({
    databaseUrl: db.url,
    request,
    account: { id: account, name: 'p2p' },
    csvPath: path.join(dir, `summary-${method}-${Date.now()}.csv`),
  });
  const [header, ...rows] = parseCsv(await readFile(exported.csvPath, 'utf8'));
  const total = rows.find((r) => r[header!.indexOf('level')] === 'total' || r[header!.indexOf('coin')] === '')!;
  return (...names: string[]) => names.map((n) => total[header!.indexOf(n)]).join(' ');
}

async function gainsRows(method: 'uk' | 'de' | 'fifo', accountId = account) {
  const request = parseExportRequest({
    report: 'realized-gains',
    accountId,
    from: '2025-01-01',
    to: '2025-12-31',
    method,
    ...(method === 'fifo' ? { valuation: 'GBP' } : {}),
  });
  const exported = await exportToFile({
    databaseUrl: db.url,
    request,
    account: { id: accountId, name: 'p2p' },
    csvPath: path.join(dir, `gains-${method}-${Date.now()}.csv`),
  });
  const [header, ...rows] = parseCsv(await readFile(exported.csvPath, 'utf8'));
  const pick = (r: string[], ...names: string[]) => names.map((n) => r[header!.indexOf(n)]).join(' ');
  return { rows, pick, review: exported.manifest.review.values };
}

const storedCount = () =>
  withClient(db.url, async (c) =>
    Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM supplied_proceeds')).rows[0]!.n),
  );

beforeAll(async () => {
  account = await insertAccount(db.url, 'p2p');
  other = await insertAccount(db.url, 'other');
  // 1000 USDT bought through P2P on 10 January 2025, 100 of them sold through P2P on 8 March 2025.
  await insertP2p(account, [
    { id: 'p1', coin: 'USDT', type: 'buy', total: '1000', ts: '2025-01-10T10:00:00.000Z' },
    { id: 'p4', coin: 'USDT', type: 'sell', total: '100', ts: '2025-03-08T10:00:00.000Z' },
  ]);
  await insertP2p(other, [{ id: 'q1', coin: 'USDT', type: 'sell', total: '5', ts: '2025-03-08T10:00:00.000Z' }]);
  // The buy's cost from the bank statement, in pounds and in euros (cost-basis import).
  await withClient(db.url, (c) =>
    importCostBasis(
      c,
      account,
      file(
        'cost.csv',
        'coin,quantity,acquired_at,cost,currency,source\nUSDT,1000,2025-01-10,800,GBP,bank\nUSDT,1000,2025-01-10,900,EUR,bank\n',
      ),
    ),
  );
  // Market prices, which must never become the sale's proceeds: USDT 0.8 GBP, 0.9 EUR.
  const lines = ['date,base,quote,price,source'];
  for (let d = 1; d <= 28; d++) {
    const day = `2025-03-${String(d).padStart(2, '0')}`;
    lines.push(`${day},USDT,GBP,0.8,test`, `${day},USDT,EUR,0.9,test`);
  }
  await withClient(db.url, (c) => importPrices(c, Readable.from([`${lines.join('\n')}\n`])));
});

describe('ledgerline proceeds import', () => {
  it('before an import the P2P sell’s proceeds are empty and flagged, in the uk and de summaries counted as an unpriced disposal, out of the figures', async () => {
    const uk = await gainsRows('uk');
    expect(
      uk.rows.map((r) => uk.pick(r, 'coin', 'quantity', 'proceeds', 'allowable_cost', 'disposal_record_ids')),
    ).toEqual(['USDT 100  80 p2p:p4']);
    expect(uk.review).toEqual({ 'unknown-proceeds': 1 });
    const ukYear = await summary('uk', '2024-04-06', '2025-04-05');
    expect(ukYear('disposals', 'proceeds', 'allowable_costs', 'net_gain', 'unpriced_disposals')).toBe('1 0 0 0 1');
    const deYear = await summary('de', '2025-01-01', '2025-12-31');
    expect(deYear('matches', 'taxable_proceeds', 'taxable_cost', 'taxable_gain', 'unpriced_matches')).toBe('1 0 0 0 1');
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      expect(await lackingProceeds(pool, account)).toEqual([
        { recordId: 'p2p:p4', soldAt: '2025-03-08T10:00:00Z', coin: 'USDT', quantity: '100', suppliedIn: '' },
      ]);
    } finally {
      await pool.end();
    }
  });

  it('refuses a bad file with a one-line error naming the line and the field, and writes nothing', async () => {
    const refused = async (text: string) => {
      const error = await withClient(db.url, (c) => importProceeds(c, account, file('bad.csv', text))).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as Error).message).not.toContain('\n');
      return (error as Error).message;
    };
    expect(await refused('record_id,proceeds,currency,source,price\np2p:p4,85,GBP,bank,1\n')).toBe(
      'header: unknown column; columns are record_id, proceeds, currency, source, note (got "price")',
    );
    expect(await refused('record_id,proceeds,currency,source\np2p:p4,85,GBP,bank\np2p:p4,8.5e1,EUR,bank\n')).toBe(
      'line 3 proceeds: must be a plain decimal, 0 or more (got "8.5e1")',
    );
    expect(await refused('record_id,proceeds,currency,source\np2p:p4,85,GBP,bank\np2p:p9,1,GBP,bank\n')).toBe(
      'line 3 record_id: must name a P2P sell of the account (got "p2p:p9")',
    );
    // Another account's sale, or a P2P buy, is no sale of this account.
    expect(await refused('record_id,proceeds,currency,source\np2p:q1,1,GBP,bank\n')).toContain('line 2 record_id');
    expect(await refused('record_id,proceeds,currency,source\np2p:p1,1,GBP,bank\n')).toContain('line 2 record_id');
    expect(await refused('record_id,proceeds,currency,source\nspot:p4,1,GBP,bank\n')).toBe(
      'line 2 record_id: must name a P2P sell as the gains reports show it (p2p:<id>) (got "spot:p4")',
    );
    expect(await refused('record_id,proceeds,currency,source\np2p:p4,1,£,bank\n')).toContain('line 2 currency');
    expect(await storedCount()).toBe(0);
    expect(await withClient(db.url, (c) => listProceedsImports(c, account))).toEqual([]);
  });

  it('supplies proceeds idempotently, lists each import with its source; uk uses the pounds, de the euros, no longer flagged', async () => {
    const good = file(
      'p2p-sales.csv',
      'record_id,proceeds,currency,source,note\np2p:p4,85,GBP,bank-statement,paid by J. Doe\np2p:p4,95.5,EUR,bank-statement,\n',
    );
    const first = await withClient(db.url, (c) => importProceeds(c, account, good));
    const again = await withClient(db.url, (c) => importProceeds(c, account, good));
    expect([first.inserted, first.alreadyImported, again.inserted, again.alreadyImported]).toEqual([2, false, 0, true]);
    // The same figures in another file: not added twice; a different figure: refused.
    const same = await withClient(db.url, (c) =>
      importProceeds(c, account, file('same.csv', 'record_id,proceeds,currency,source\np2p:p4,85.00,GBP,other\n')),
    );
    expect(same.inserted).toBe(0);
    await expect(
      withClient(db.url, (c) =>
        importProceeds(c, account, file('changed.csv', 'record_id,proceeds,currency,source\np2p:p4,86,GBP,bank\n')),
      ),
    ).rejects.toThrow(/^line 2 proceeds: differs from the 85 GBP that import \d+ supplied for p2p:p4/);
    expect(await storedCount()).toBe(2);
    const imports = await withClient(db.url, (c) => listProceedsImports(c, account));
    expect(imports.map((i) => [i.fileName, i.sources, i.sales])).toEqual([
      ['p2p-sales.csv', 'bank-statement', 2],
      ['same.csv', 'other', 0],
    ]);

    const uk = await gainsRows('uk');
    expect(
      uk.rows.map((r) => uk.pick(r, 'coin', 'quantity', 'proceeds', 'allowable_cost', 'gain', 'disposal_record_ids')),
    ).toEqual(['USDT 100 85 80 5 p2p:p4<bank-statement']);
    expect(uk.review).toEqual({});
    const de = await gainsRows('de');
    expect(de.rows.map((r) => de.pick(r, 'coin', 'quantity', 'proceeds', 'cost_basis', 'gain', 'taxable'))).toEqual([
      'USDT 100 95.5 90 5.5 yes',
    ]);
    expect(de.review).toEqual({});

    // The filing summaries: the sale now in the figures (uk whole pounds, SA108; de §23 EStG).
    const ukYear = await summary('uk', '2024-04-06', '2025-04-05');
    expect(ukYear('disposals', 'proceeds', 'allowable_costs', 'net_gain', 'unpriced_disposals')).toBe('1 85 80 5 0');
    const deYear = await summary('de', '2025-01-01', '2025-12-31');
    expect(deYear('matches', 'taxable_proceeds', 'taxable_cost', 'taxable_gain', 'unpriced_matches')).toBe(
      '1 95.5 90 5.5 0',
    );
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      expect(await lackingProceeds(pool, account)).toEqual([]);
    } finally {
      await pool.end();
    }
  });

  it('under fifo, walked from a stored lot checkpoint (no supplied costs: gains-source.ts), the supplied proceeds count too', async () => {
    const sale = file('other.csv', 'record_id,proceeds,currency,source\np2p:q1,4.2,GBP,bank\n');
    await withClient(db.url, (c) => importProceeds(c, other, sale));
    for (let i = 0; i < 2; i++) {
      // Twice: the second export resumes from the checkpoints the first stored.
      const fifo = await gainsRows('fifo', other);
      // 5 USDT never bought: beyond the holdings (cost 0, flagged), but its proceeds are the supplied 4.2.
      expect(
        fifo.rows.map((r) => fifo.pick(r, 'coin', 'quantity', 'proceeds', 'cost_basis', 'disposal_record_ids')),
      ).toEqual(['USDT 5 4.2 0 p2p:q1<bank']);
    }
    const stored = await withClient(db.url, async (c) =>
      Number(
        (await c.query<{ n: string }>('SELECT count(*) AS n FROM gains_checkpoint WHERE account_id = $1', [other]))
          .rows[0]!.n,
      ),
    );
    expect(stored).toBeGreaterThan(0);
  });

  it('an import logs the sale’s instant in the gains change log (stored checkpoints after it stop matching)', async () => {
    const logged = await withClient(db.url, async (c) => {
      const { rows } = await c.query<{ from: string }>(
        `SELECT to_char(changed_from AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI') AS from FROM gains_input_change
          WHERE account_id = $1 AND source = 'supplied_proceeds' ORDER BY id`,
        [account],
      );
      return rows.map((r) => r.from);
    });
    // One statement, one row: the two currencies of the first file; the re-imports wrote nothing.
    expect(logged).toEqual(['2025-03-08T10:00']);
  });
});
