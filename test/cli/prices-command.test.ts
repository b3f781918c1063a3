import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { EXIT } from '../../src/cli/exit-codes.ts';
import { insertAccount, insertFuturesLedger, insertSpot } from '../export/seed.ts';
import { runCliLive } from '../helpers/cli.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const db = useTestDatabase('pricescli');
const dir = mkdtempSync(path.join(tmpdir(), 'ledgerline-prices-'));
const env = () => ({ DATABASE_URL: db.url });

function file(name: string, text: string): string {
  const target = path.join(dir, name);
  writeFileSync(target, text);
  return target;
}

describe('ledgerline prices', () => {
  it('imports a CSV, idempotently, and lists it; a bad file is refused naming line and field, nothing written', async () => {
    const good = file('good.csv', 'date,base,quote,price\n2026-01-31,EUR,USD,1.0385\n2026-02-01,EUR,USD,1.04\n');
    const first = await runCliLive(['prices', 'import', '--file', good, '--source', 'ecb'], env());
    expect(first.stderr).toBe('');
    expect(first.stdout.trim()).toBe('2 rows: 2 imported, 0 updated, 0 unchanged');
    const again = await runCliLive(['prices', 'import', '--file', good, '--source', 'ecb', '--json'], env());
    expect(JSON.parse(again.stdout)).toEqual({ rows: 2, points: 2, inserted: 0, updated: 0, unchanged: 2 });

    const bad = file(
      'bad.csv',
      'date,base,quote,price,source\n2026-03-01,EUR,USD,1.1,ecb\n2026-03-02,EUR,USD,abc,ecb\n',
    );
    const refused = await runCliLive(['prices', 'import', '--file', bad], env());
    expect(refused.status).toBe(EXIT.badInput);
    expect(refused.stderr).toMatch(/line 3, price/);

    const listed = await runCliLive(['prices', 'list', '--base', 'eur', '--json'], env());
    expect(JSON.parse(listed.stdout)).toEqual({
      prices: [
        { time: '2026-01-31T00:00:00.000Z', base: 'EUR', quote: 'USD', price: '1.0385', source: 'ecb', account: null },
        { time: '2026-02-01T00:00:00.000Z', base: 'EUR', quote: 'USD', price: '1.04', source: 'ecb', account: null },
      ],
    });
    const windowed = await runCliLive(['prices', 'list', '--from', '2026-02-01', '--to', '2026-02-02'], env());
    expect(windowed.stdout.trim().split('\n')).toHaveLength(1);
  });

  it("refreshes an account's trade prices and lists them with --account", async () => {
    const account = await insertAccount(db.url, 'alice');
    await insertSpot(db.url, account, [
      { recordId: '1', coin: 'BTC', spotTaxType: 'Sell', amount: '-2', bizOrderId: 'o1', ts: Date.UTC(2026, 0, 5) },
      {
        recordId: '2',
        coin: 'USDT',
        spotTaxType: 'Sell',
        amount: '190000',
        bizOrderId: 'o1',
        ts: Date.UTC(2026, 0, 5),
      },
    ]);
    const refreshed = await runCliLive(['prices', 'refresh', '--json'], env());
    expect(JSON.parse(refreshed.stdout)).toEqual({
      accounts: [{ account: 'alice', inserted: 1, updated: 0, unchanged: 0, removed: 0 }],
    });
    const listed = await runCliLive(['prices', 'list', '--account', 'alice', '--base', 'BTC', '--json'], env());
    expect(JSON.parse(listed.stdout)).toEqual({
      prices: [
        {
          time: '2026-01-05T00:00:00.000Z',
          base: 'BTC',
          quote: 'USDT',
          price: '95000',
          source: 'trade',
          account: 'alice',
        },
      ],
    });
    const unknown = await runCliLive(['prices', 'refresh', '--account', 'bob'], env());
    expect(unknown.status).toBe(EXIT.badInput);
    expect(unknown.stderr).toMatch(/--account/);
  });

  // Issue 42 item 3: `prices` reports coins held without any source (a stablecoin included: it is
  // priced from a source, never assumed worth its peg), and fails so a script notices.
  it('lists the sources of every coin an account holds, and names the coins without one (exit 1)', async () => {
    const account = await insertAccount(db.url, 'carol');
    await insertSpot(db.url, account, [
      { recordId: 's1', coin: 'ETH', spotTaxType: 'Deposit', amount: '2', ts: Date.UTC(2026, 2, 5) },
      { recordId: 's2', coin: 'USDT', spotTaxType: 'Deposit', amount: '100', ts: Date.UTC(2026, 2, 5) },
    ]);
    await insertFuturesLedger(db.url, account, [
      {
        recordId: 'f1',
        marginCoin: 'USDC',
        futureTaxType: 'trans_from_exchange',
        amount: '50',
        ts: Date.UTC(2026, 2, 6),
      },
    ]);
    const closes = file('eth.csv', 'date,base,quote,price\n2026-03-05,ETH,USDT,3000\n2026-03-06,ETH,USDT,3010\n');
    await runCliLive(['prices', 'import', '--file', closes, '--source', 'vendor'], env());

    const before = await runCliLive(
      ['prices', 'sources', '--account', 'carol', '--json', '--valuation', 'USDT'],
      env(),
    );
    expect(before.status).toBe(EXIT.failed);
    const report = JSON.parse(before.stdout) as {
      coins: { coin: string; sources: string[] }[];
      withoutSource: string[];
    };
    expect(report.withoutSource).toEqual(['USDC']);
    expect(report.coins.find((c) => c.coin === 'ETH')?.sources).toContain('vendor');
    const text = await runCliLive(['prices', 'sources', '--account', 'carol', '--valuation', 'USDT'], env());
    expect(text.stdout).toMatch(/USDC\s+NO SOURCE/);
    expect(text.stdout).toMatch(/USDT\s+the valuation currency/);

    const usdc = file('usdc.csv', 'date,base,quote,price\n2026-03-06,USDC,USDT,0.9998\n');
    await runCliLive(['prices', 'import', '--file', usdc, '--source', 'vendor'], env());
    const after = await runCliLive(['prices', 'sources', '--account', 'carol', '--json', '--valuation', 'USDT'], env());
    expect(after.status).toBe(EXIT.done);
    expect(JSON.parse(after.stdout).withoutSource).toEqual([]);
  });
});
