import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { importPrices } from '../../src/accounting/prices/import-prices.ts';
import { parseExportRequest } from '../../src/export/export-request.ts';
import { exportToFile } from '../../src/export/export-to-file.ts';
import { sharingGainsWalks } from '../../src/export/reports/shared-gains-walks.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { insertAccount, insertSpot, type SpotRow, withClient } from './seed.ts';

/**
 * Files exported together with their gains walks shared (the demo's exports) are the files each
 * export writes alone, byte for byte: same rows, same order, same manifest figures.
 */
const db = useTestDatabase('sharedwalk');
let account: string;
let dir: string;

const REPORTS = ['realized-gains', 'realized-gains-summary', 'income', 'income-summary'] as const;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'shared-walk-'));
  account = await insertAccount(db.url, 'shared');
  const rows: SpotRow[] = [
    { recordId: 'dep', coin: 'USDT', spotTaxType: 'Deposit', amount: '100000', ts: '2024-01-02T10:00:00.000Z' },
  ];
  // A year and a half of ETH bought and sold at moving prices, a trade every other day.
  for (let i = 0; i < 270; i++) {
    const ts = new Date(Date.UTC(2024, 0, 3 + i * 2, 9 + (i % 12))).toISOString();
    const qty = `${(i % 5) + 1}.${i % 10}`;
    const usdt = `${(2000 + ((i * 37) % 900)) * ((i % 5) + 1)}.25`;
    const sell = i % 3 === 2;
    rows.push(
      {
        recordId: `t${i}a`,
        coin: 'ETH',
        spotTaxType: sell ? 'Sell' : 'Buy',
        amount: sell ? `-${qty}` : qty,
        ts,
        bizOrderId: `o${i}`,
      },
      {
        recordId: `t${i}b`,
        coin: 'USDT',
        spotTaxType: sell ? 'Sell' : 'Buy',
        amount: sell ? usdt : `-${usdt}`,
        ts,
        bizOrderId: `o${i}`,
      },
    );
  }
  await insertSpot(db.url, account, rows);
  const lines = ['date,base,quote,price,source'];
  for (let d = 0; d < 560; d++) {
    const day = new Date(Date.UTC(2024, 0, 1 + d)).toISOString().slice(0, 10);
    lines.push(`${day},USDT,GBP,0.8,test`, `${day},USDT,EUR,0.9,test`);
  }
  await withClient(db.url, (c) => importPrices(c, Readable.from([`${lines.join('\n')}\n`]), { zone: 'UTC' }));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function exportOne(report: string, method: string, into: string): Promise<{ csv: string; rows: number }> {
  const request = parseExportRequest({
    report,
    accountId: account,
    from: '2024-01-01',
    to: '2025-06-30',
    tz: method === 'fifo' ? 'UTC' : method === 'uk' ? 'Europe/London' : 'Europe/Berlin',
    method: report === 'income' ? undefined : method,
    valuation: method === 'uk' ? 'GBP' : method === 'de' ? 'EUR' : undefined,
  });
  const file = await exportToFile({
    databaseUrl: db.url,
    request,
    account: { id: account, name: 'shared' },
    csvPath: path.join(dir, into, `${report}-${method}.csv`),
  });
  return { csv: await readFile(file.csvPath, 'utf8'), rows: file.manifest.rowCount };
}

describe('gains walks shared by exports made together', () => {
  it('give every file the bytes it has when exported alone, under fifo, uk and de', async () => {
    const runs = ['fifo', 'uk', 'de'].flatMap((method) =>
      REPORTS.filter((r) => r !== 'income' || method === 'fifo').map((report) => ({ report, method })),
    );
    const alone = [];
    for (const run of runs) alone.push(await exportOne(run.report, run.method, 'alone'));
    const walks: string[] = [];
    const together = await sharingGainsWalks(
      () => Promise.all(runs.map((run) => exportOne(run.report, run.method, 'together'))),
      { onWalk: (key) => walks.push(key) },
    );
    expect(together.map((f) => f.csv)).toEqual(alone.map((f) => f.csv));
    // 11 files from 3 walks: fifo's four files one, de's three one, uk's three its share matching.
    const kindAndMethod = (key: string) => {
      const parts = JSON.parse(key) as string[];
      return `${parts[0]} ${parts[6]}`;
    };
    expect(walks.map(kindAndMethod).sort()).toEqual(['lots de', 'lots fifo', 'uk-shares uk']);
    // The files hold what the history makes: realized gains under each method, not empty files.
    const gains = together.filter((_, i) => runs[i]!.report === 'realized-gains');
    for (const file of gains) expect(file.rows).toBeGreaterThan(80);
  });
});
