import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { importPrices } from '../../src/accounting/prices/import-prices.ts';
import { parseExportRequest } from '../../src/export/export-request.ts';
import { exportToFile } from '../../src/export/export-to-file.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { insertAccount, insertSpot, parseCsv, withClient } from './seed.ts';

/**
 * The gains manifest states how much the rows to review carry, not only how many there are
 * (issue 33 item 3, docs/reports.md "Unknown cost"): per flag and coin, the quantity and the
 * proceeds of the parts of unknown cost and of the parts beyond the holdings, each figure the sum
 * of the file's own rows.
 */
const db = useTestDatabase('reviewamounts');
let account: string;
let dir: string;

function sale(id: string, day: string, coin: string, quantity: string, usdt: string) {
  const ts = `${day}T10:00:00.000Z`;
  return [
    { recordId: `${id}a`, coin, spotTaxType: 'Sell', amount: `-${quantity}`, bizOrderId: id, ts },
    { recordId: `${id}b`, coin: 'USDT', spotTaxType: 'Sell', amount: usdt, bizOrderId: id, ts },
  ];
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'review-amounts-'));
  account = await insertAccount(db.url, 'moved-in');
  await insertSpot(db.url, account, [
    // 1.5 ETH moved in (cost unknown), sold in two parts: 1 for 3,000.25 and 0.3 for 600.5 USDT.
    { recordId: 'dep', coin: 'ETH', spotTaxType: 'Deposit', amount: '1.5', ts: '2025-03-01T10:00:00.000Z' },
    ...sale('o1', '2025-06-02', 'ETH', '1', '3000.25'),
    ...sale('o2', '2025-06-03', 'ETH', '0.3', '600.5'),
    // 2 SOL never held, sold for 200.1: beyond the holdings.
    ...sale('o3', '2025-06-04', 'SOL', '2', '200.1'),
    // 0.25 BTC withdrawn, none held: a withdrawal beyond the holdings, nothing realized.
    { recordId: 'w1', coin: 'BTC', spotTaxType: 'Withdrawal', amount: '-0.25', ts: '2025-06-05T10:00:00.000Z' },
  ]);
  const lines = ['date,base,quote,price,source'];
  for (let d = 1; d <= 30; d++) lines.push(`2025-06-${String(d).padStart(2, '0')},USDT,GBP,0.8,test`);
  await withClient(db.url, (c) => importPrices(c, Readable.from([`${lines.join('\n')}\n`]), { zone: 'Europe/London' }));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function exportGains(method: string) {
  const request = parseExportRequest({
    report: 'realized-gains',
    accountId: account,
    from: '2025-01-01',
    to: '2025-12-31',
    tz: 'UTC',
    method,
  });
  const file = await exportToFile({
    databaseUrl: db.url,
    request,
    account: { id: account, name: 'moved-in' },
    csvPath: path.join(dir, `gains-${method}.csv`),
  });
  const [header, ...rows] = parseCsv(await readFile(file.csvPath, 'utf8'));
  return { manifest: file.manifest, header: header!, rows };
}

describe('the gains manifest counts what the rows to review carry', () => {
  it('fifo: per coin, the quantity and proceeds of the parts of unknown cost and beyond the holdings, beside the row counts', async () => {
    const { manifest, header, rows } = await exportGains('fifo');
    expect(manifest.review.values).toEqual({
      'unknown-cost': 2,
      'disposal-exceeds-holdings': 1,
      'withdrawal-exceeds-holdings': 1,
    });
    expect(manifest.reviewAmounts).toEqual({
      'disposal-exceeds-holdings': { SOL: { rows: 1, quantity: '2', proceeds: '200.1', proceedsMissing: 0 } },
      'unknown-cost': { ETH: { rows: 2, quantity: '1.3', proceeds: '3600.75', proceedsMissing: 0 } },
      'withdrawal-exceeds-holdings': { BTC: { rows: 1, quantity: '0.25', proceeds: '0', proceedsMissing: 0 } },
    });
    // The manifest's figures are the file's own: the sum of its unknown-cost rows.
    const col = (name: string) => header.indexOf(name);
    const eth = rows.filter((r) => r[col('coin')] === 'ETH' && r[col('cost_basis')] === '');
    expect(eth.map((r) => [r[col('quantity')], r[col('proceeds')]])).toEqual([
      ['1', '3000.25'],
      ['0.3', '600.5'],
    ]);
  });

  it('uk: the same parts in pounds (HMRC pooling: a pool of unknown cost stays unknown until emptied)', async () => {
    const { manifest } = await exportGains('uk');
    // 3,600.75 USDT x 0.8 and 200.1 x 0.8, on the sale's London date's rate.
    expect(manifest.reviewAmounts?.['unknown-cost']).toEqual({
      ETH: { rows: 2, quantity: '1.3', proceeds: '2880.6', proceedsMissing: 0 },
    });
    expect(manifest.reviewAmounts?.['disposal-exceeds-holdings']).toEqual({
      SOL: { rows: 1, quantity: '2', proceeds: '160.08', proceedsMissing: 0 },
    });
  });

  it('a report of other rows (the summary) states no reviewAmounts: its rows are sums, with the counts in columns', async () => {
    const request = parseExportRequest({
      report: 'realized-gains-summary',
      accountId: account,
      from: '2025-01-01',
      to: '2025-12-31',
      tz: 'UTC',
    });
    const file = await exportToFile({
      databaseUrl: db.url,
      request,
      account: { id: account, name: 'moved-in' },
      csvPath: path.join(dir, 'summary.csv'),
    });
    expect(file.manifest.reviewAmounts).toBeUndefined();
  });

  it('rows consuming a margin compensate lot: counted per coin as review:compensate-lot, under uk and fifo', async () => {
    // 5 SOL paid in by a margin `compensate` (SOL at GBP 100), 3 of them sold on margin for 450 USDT (0.8).
    const compensated = await insertAccount(db.url, 'compensated');
    await withClient(db.url, async (c) => {
      for (const [id, coin, type, amount, day] of [
        ['c1', 'SOL', 'compensate', '5', '2025-06-01'],
        ['d1', 'SOL', 'deal_out', '-3', '2025-06-10'],
        ['d2', 'USDT', 'deal_in', '450', '2025-06-10'],
      ] as const) {
        await c.query(
          `INSERT INTO margin_ledger_record (account_id, margin_type, record_id, coin, symbol, margin_tax_type, amount, fee, total, ts, raw)
           VALUES ($1, 'crossed', $2, $3, '', $4, $5, 0, 0, $6, '{}')`,
          [compensated, id, coin, type, amount, `${day}T10:00:00.000Z`],
        );
      }
      await importPrices(c, Readable.from(['date,base,quote,price,source\n2025-06-01,SOL,GBP,100,test\n']), {
        zone: 'Europe/London',
      });
    });
    for (const method of ['uk', 'fifo'] as const) {
      const request = parseExportRequest({
        report: 'realized-gains',
        accountId: compensated,
        from: '2025-01-01',
        to: '2025-12-31',
        tz: 'UTC',
        method,
        ...(method === 'fifo' ? { valuation: 'GBP' } : {}),
      });
      const file = await exportToFile({
        databaseUrl: db.url,
        request,
        account: { id: compensated, name: 'compensated' },
        csvPath: path.join(dir, `compensated-${method}.csv`),
      });
      expect(file.manifest.review.values, method).toEqual({ 'compensate-lot': 1 });
      expect(file.manifest.reviewAmounts, method).toEqual({
        'compensate-lot': { SOL: { rows: 1, quantity: '3', proceeds: '360', proceedsMissing: 0 } },
      });
    }
  });
});
