import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';

import { beforeAll, describe, expect, it } from 'vitest';

import { importCostBasis, listCostBasisImports } from '../../src/accounting/cost-basis/cost-basis-import.ts';
import { importPrices } from '../../src/accounting/prices/import-prices.ts';
import { ValidationError } from '../../src/errors/index.ts';
import { parseExportRequest, reportParams } from '../../src/export/export-request.ts';
import { reportFor } from '../../src/export/reports/index.ts';
import { streamReport } from '../../src/export/stream-report.ts';
import { insertAccount, insertSpot, parseCsv, withClient } from '../export/seed.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

/**
 * Unknown cost, never invented (docs/reports.md, "Unknown cost"): coins moved in have no cost and
 * no acquisition date until `ledgerline cost-basis import` supplies them; `de` then counts the
 * one-year period of EStG §23(1) Nr. 2 from the supplied date.
 */
const db = useTestDatabase('costbasis');
let account: string;
const dir = mkdtempSync(path.join(tmpdir(), 'cost-basis-'));
const file = (name: string, text: string) => {
  const full = path.join(dir, name);
  writeFileSync(full, text);
  return full;
};

async function deRows(): Promise<{ rows: string[][]; column: (name: string) => number; flags: string[] }> {
  const request = parseExportRequest({
    report: 'realized-gains',
    accountId: account,
    from: '2025-01-01',
    to: '2025-12-31',
    tz: 'UTC',
    method: 'de',
  });
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c));
  const result = await streamReport({
    databaseUrl: db.url,
    report: reportFor('realized-gains', 'de'),
    params: reportParams(request, 'main', { currency: 'USDT', priceToleranceMs: 36 * 3_600_000 }),
    sink,
  });
  const [header, ...rows] = parseCsv(Buffer.concat(chunks).toString('utf8'));
  return { rows, column: (name) => header!.indexOf(name), flags: Object.keys(result.review.values) };
}

const lotCount = () =>
  withClient(db.url, async (c) =>
    Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM cost_basis_lot')).rows[0]!.n),
  );

beforeAll(async () => {
  account = await insertAccount(db.url, 'moved-in');
  await insertSpot(db.url, account, [
    // 1 ETH moved in on 1 March 2025 and sold on 1 June 2025 for 3,000 USDT.
    { recordId: 'dep', coin: 'ETH', spotTaxType: 'Deposit', amount: '1', ts: '2025-03-01T10:00:00.000Z' },
    {
      recordId: 's1',
      coin: 'ETH',
      spotTaxType: 'Sell',
      amount: '-1',
      bizOrderId: 'o1',
      ts: '2025-06-01T10:00:00.000Z',
    },
    {
      recordId: 's2',
      coin: 'USDT',
      spotTaxType: 'Sell',
      amount: '3000',
      bizOrderId: 'o1',
      ts: '2025-06-01T10:00:00.000Z',
    },
  ]);
  const lines = ['date,base,quote,price,source', '2025-05-31,USDT,EUR,0.9,test'];
  for (let d = 1; d <= 28; d++) lines.push(`2025-06-${String(d).padStart(2, '0')},USDT,EUR,0.9,test`);
  await withClient(db.url, (c) => importPrices(c, Readable.from([`${lines.join('\n')}\n`])));
});

describe('ledgerline cost-basis import', () => {
  it('refuses a bad row with a one-line error naming the line, the field and the rule, and writes nothing', async () => {
    const bad = file(
      'bad.csv',
      'coin,quantity,acquired_at,cost,currency,source\nETH,1,2024-01-10,1500,EUR,ok\nETH,-1,2024-01-10,1,EUR,x\n',
    );
    const error = await withClient(db.url, (c) => importCostBasis(c, account, bad)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toBe('line 3 quantity: must be a plain decimal above 0 (got "-1")');
    expect((error as Error).message).not.toContain('\n');
    const missing = file('missing.csv', 'coin,quantity,acquired_at,cost,source\nETH,1,2024-01-10,1,x\n');
    await expect(withClient(db.url, (c) => importCostBasis(c, account, missing))).rejects.toThrow(
      'header: must have a currency column',
    );
    expect(await lotCount()).toBe(0);
  });

  it('before an import, the sale of coins moved in has no cost and no date and is flagged review:unknown-cost (never invented)', async () => {
    const { rows, column, flags } = await deRows();
    expect(
      rows.map((r) => [
        r[column('coin')],
        r[column('cost_basis')],
        r[column('gain')],
        r[column('acquired_at')],
        r[column('taxable')],
      ]),
    ).toEqual([['ETH', '', '', '', 'yes']]);
    expect(flags).toContain('unknown-cost');
  });

  it('supplies cost and date idempotently, lists each import with its source, and de counts the year from the supplied date', async () => {
    const good = file(
      'eth.csv',
      'coin,quantity,acquired_at,cost,currency,source,note\nETH,1,2024-01-10,1500,EUR,kraken-statement,bought on Kraken\n',
    );
    const first = await withClient(db.url, (c) => importCostBasis(c, account, good));
    const again = await withClient(db.url, (c) => importCostBasis(c, account, good));
    expect([first.inserted, first.alreadyImported, again.inserted, again.alreadyImported]).toEqual([1, false, 0, true]);
    expect(await lotCount()).toBe(1);
    const imports = await withClient(db.url, (c) => listCostBasisImports(c, account));
    expect(imports.map((i) => [i.fileName, i.sources, i.lots])).toEqual([['eth.csv', 'kraken-statement', 1]]);
    const { rows, column, flags } = await deRows();
    // 3,000 USDT x 0.9 = EUR 2,700 against the supplied EUR 1,500; held from 10 January 2024: more than a year.
    expect(
      rows.map((r) => [r[column('proceeds')], r[column('cost_basis')], r[column('gain')], r[column('taxable')]]),
    ).toEqual([['2700', '1500', '1200', 'no']]);
    expect(flags).not.toContain('unknown-cost');
  });
});
