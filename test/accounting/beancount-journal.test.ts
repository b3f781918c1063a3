import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BalanceTieOutError } from '../../src/accounting/balances/balance-tie-out-error.ts';
import { exportCsvPath } from '../../src/export/export-files.ts';
import { parseExportRequest } from '../../src/export/export-request.ts';
import { exportToFile } from '../../src/export/export-to-file.ts';
import { generateSpotRecords } from '../../src/simulator/data/spot-generator.ts';
import { SpotStore } from '../../src/simulator/data/spot-store.ts';
import { insertAccount, insertSpot, withClient } from '../export/seed.ts';
import { beanCheck } from '../helpers/bean-check.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const db = useTestDatabase('beancount');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'll-beancount-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function exportJournal(accountId: string, name: string, from: string, to: string, tz = 'UTC', currency?: string) {
  const request = parseExportRequest({ report: 'beancount', accountId, from, to, tz });
  const file = await exportToFile({
    databaseUrl: db.url,
    request,
    account: { id: accountId, name },
    csvPath: exportCsvPath(dir, request),
    ...(currency ? { valuation: { currency, priceToleranceMs: 86_400_000 } } : {}),
  });
  return { ...file, text: await readFile(file.csvPath, 'utf8') };
}

/** `balance` assertions by date, account and amount. */
function assertions(text: string): { day: string; account: string; amount: string }[] {
  return [...text.matchAll(/^(\d{4}-\d{2}-\d{2}) balance (\S+) +(\S+) \S+$/gm)].map((m) => ({
    day: m[1]!,
    account: m[2]!,
    amount: m[3]!,
  }));
}

/** The simulator's own records (a year, every record type, trades by fill and by order), stored as ingestion would. */
async function insertSimulatedYear(accountId: string): Promise<string[]> {
  const columns = generateSpotRecords({ seed: 16, count: 4_000, bursts: [], anchor: Date.UTC(2026, 10, 1) });
  const store = new SpotStore(columns);
  const records = Array.from({ length: columns.ids.length }, (_, i) => store.record(i));
  await withClient(db.url, (c) =>
    c.query(
      `INSERT INTO spot_record (account_id, record_id, coin, spot_tax_type, amount, fee, balance, biz_order_id, ts, raw)
       SELECT $1::uuid, r.id, r.coin, r.type, r.amount::numeric, r.fee::numeric, r.balance::numeric, r.biz, to_timestamp(r.ts::bigint / 1000.0), '{}'::jsonb
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
         AS r(id, coin, type, amount, fee, balance, biz, ts)`,
      [
        accountId,
        records.map((r) => r.id),
        records.map((r) => r.coin),
        records.map((r) => r.spotTaxType),
        records.map((r) => r.amount),
        records.map((r) => r.fee),
        records.map((r) => r.balance),
        records.map((r) => r.bizOrderId),
        records.map((r) => r.ts),
      ],
    ),
  );
  return [...new Set(records.map((r) => r.coin))].sort();
}

describe('the beancount journal', () => {
  let simulated: { accountId: string; coins: string[] };
  beforeAll(async () => {
    const accountId = await insertAccount(db.url, 'simulated');
    simulated = { accountId, coins: await insertSimulatedYear(accountId) };
  });

  it("passes bean-check on a year of the simulator's records, with the exchange's balance asserted per coin at both ends", async () => {
    const journal = await exportJournal(simulated.accountId, 'simulated', '2025-11-01', '2026-10-31', 'Europe/Berlin');
    expect(journal.csvPath.endsWith('beancount_2025-11-01_2026-10-31_Europe~Berlin.beancount')).toBe(true);
    expect(journal.manifestPath.endsWith('.manifest.json')).toBe(true);
    expect(journal.text.startsWith('; ledgerline beancount journal of simulated')).toBe(true);
    expect(journal.text).toContain('option "operating_currency" "USDT"');
    const check = beanCheck(journal.csvPath);
    expect(check.output).toBe('');
    expect(check.status).toBe(0);
    const closing = assertions(journal.text).filter((a) => a.day === '2026-11-01');
    expect(closing.map((a) => a.account).sort()).toEqual(simulated.coins.map((c) => `Assets:Exchange:Spot:${c}`));
    expect(journal.text).toMatch(/@@ [0-9.]+ USDT\n/);
    expect(journal.manifest.rowCount).toBeGreaterThan(1_000);
    expect(journal.manifest.unpairedLegs).toBe(0);
    // Same data, same bytes.
    const again = await exportJournal(simulated.accountId, 'simulated', '2025-11-01', '2026-10-31', 'Europe/Berlin');
    expect(again.manifest.sha256).toBe(journal.manifest.sha256);
  });

  it('opens a period that starts mid-history with the balances held then, and still passes', async () => {
    const journal = await exportJournal(simulated.accountId, 'simulated', '2026-03-01', '2026-06-30');
    const check = beanCheck(journal.csvPath);
    expect(check.output).toBe('');
    expect(check.status).toBe(0);
    expect(journal.text).toContain('2026-02-28 * "Opening balances');
    const opening = assertions(journal.text).filter((a) => a.day === '2026-03-01');
    expect(opening).toHaveLength(simulated.coins.length);
    expect(opening.some((a) => !/^0\.0+$/.test(a.amount))).toBe(true);
  });

  it('books every record of consecutive periods exactly once, each in the period of its own time', async () => {
    const ids: string[] = [];
    for (const [from, to] of [
      ['2026-01-01', '2026-01-31'],
      ['2026-02-01', '2026-02-28'],
      ['2026-03-01', '2026-03-31'],
    ] as const) {
      const journal = await exportJournal(simulated.accountId, 'simulated', from, to, 'Asia/Tokyo');
      expect(beanCheck(journal.csvPath).status).toBe(0);
      for (const m of journal.text.matchAll(/^ {2}record_ids: "([^"]+)"$/gm)) ids.push(...m[1]!.split('+'));
    }
    const stored = await withClient(db.url, (c) =>
      c.query<{ record_id: string }>(
        `SELECT record_id FROM spot_record WHERE account_id = $1
           AND ts >= '2025-12-31T15:00:00Z' AND ts < '2026-03-31T15:00:00Z'`,
        [simulated.accountId],
      ),
    );
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(stored.rows.map((r) => r.record_id).sort());
  });

  it("takes the installation's valuation currency as the operating currency, prices on the other side", async () => {
    const journal = await exportJournal(simulated.accountId, 'simulated', '2026-03-01', '2026-03-31', 'UTC', 'BTC');
    expect(journal.text).toContain('option "operating_currency" "BTC"');
    // A purchase of BTC reads "-x USDT @@ y BTC": the price is stated in the operating currency.
    expect(journal.text).toMatch(/Assets:Exchange:Spot:USDT {2}-[0-9.]+ USDT @@ [0-9.]+ BTC\n/);
    expect(journal.text).not.toMatch(/[0-9] BTC @@/);
    expect(beanCheck(journal.csvPath).status).toBe(0);
  });

  it("fails bean-check when one balance assertion is off by the exchange's smallest unit", async () => {
    const journal = await exportJournal(simulated.accountId, 'simulated', '2026-03-01', '2026-06-30');
    const closing = assertions(journal.text).find((a) => a.day === '2026-07-01')!;
    const line = `2026-07-01 balance ${closing.account}  ${closing.amount}`;
    expect(journal.text).toContain(line);
    // The simulator's amounts have 8 decimals: one unit of the 8th more than the exchange says.
    const off = new Decimal(closing.amount).plus('0.00000001').toFixed(18);
    const tampered = path.join(dir, 'tampered.beancount');
    await writeFile(tampered, journal.text.replace(line, `2026-07-01 balance ${closing.account}  ${off}`));
    const check = beanCheck(tampered);
    expect(check.status).not.toBe(0);
    expect(check.output).toContain(`Balance failed for '${closing.account}'`);
  });

  it("refuses a journal whose records do not add up to the exchange's balance, writing nothing", async () => {
    const accountId = await insertAccount(db.url, 'gap');
    await insertSpot(db.url, accountId, [
      { recordId: '1', coin: 'ETH', spotTaxType: 'Deposit', amount: '2', balance: '2', ts: '2026-05-02T10:00:00Z' },
      // The exchange says 0.5 after a withdrawal of 1: a record is missing from the store.
      {
        recordId: '2',
        coin: 'ETH',
        spotTaxType: 'Withdrawal',
        amount: '-1',
        balance: '0.5',
        ts: '2026-05-03T10:00:00Z',
      },
    ]);
    const request = parseExportRequest({ report: 'beancount', accountId, from: '2026-05-01', to: '2026-05-31' });
    const csvPath = exportCsvPath(dir, request);
    await expect(
      exportToFile({ databaseUrl: db.url, request, account: { id: accountId, name: 'gap' }, csvPath }),
    ).rejects.toThrow(BalanceTieOutError);
    await expect(readFile(csvPath)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('books edge cases exactly: renamed coins, fees on both legs, a fill across the period end, unpaired and unmapped records', async () => {
    const accountId = await insertAccount(db.url, 'edges');
    await insertSpot(db.url, accountId, [
      {
        recordId: '1',
        coin: 'USDT',
        spotTaxType: 'Deposit',
        amount: '20000',
        balance: '20000',
        ts: '2026-04-30T10:00:00Z',
      },
      {
        recordId: '2',
        coin: '1INCH',
        spotTaxType: 'Airdrop Reward-A',
        amount: '7.5',
        balance: '7.5',
        ts: '2026-05-02T10:00:00Z',
      },
      // A sale paired by fill, a fee on both legs.
      { recordId: '3', coin: 'BTC', spotTaxType: 'Deposit', amount: '1', balance: '1', ts: '2026-05-03T10:00:00Z' },
      {
        recordId: '4',
        coin: 'BTC',
        spotTaxType: 'Sell',
        amount: '-0.5',
        fee: '-0.0001',
        balance: '0.4999',
        bizOrderId: 'o1',
        ts: '2026-05-04T10:00:00Z',
      },
      {
        recordId: '5',
        coin: 'USDT',
        spotTaxType: 'Sell',
        amount: '15000.25',
        fee: '-7.5',
        balance: '34992.75',
        bizOrderId: 'o1',
        ts: '2026-05-04T10:00:00Z',
      },
      // One USDT leg, two BTC legs: one transaction for the order, the received side summed.
      {
        recordId: '6',
        coin: 'USDT',
        spotTaxType: 'Buy',
        amount: '-3000',
        balance: '31992.75',
        bizOrderId: 'o2',
        ts: '2026-05-05T10:00:00Z',
      },
      {
        recordId: '7',
        coin: 'BTC',
        spotTaxType: 'Buy',
        amount: '0.06',
        fee: '-0.00006',
        balance: '0.55984',
        bizOrderId: 'o2',
        ts: '2026-05-05T10:00:00Z',
      },
      {
        recordId: '8',
        coin: 'BTC',
        spotTaxType: 'Buy',
        amount: '0.04',
        fee: '-0.00004',
        balance: '0.5998',
        bizOrderId: 'o2',
        ts: '2026-05-06T10:00:00Z',
      },
      // A trade leg without its other side; a fee-only record; a type the mapping does not know.
      {
        recordId: '9',
        coin: 'ETH',
        spotTaxType: 'Buy',
        amount: '2',
        balance: '2',
        bizOrderId: 'lonely',
        ts: '2026-05-07T10:00:00Z',
      },
      {
        recordId: '10',
        coin: 'USDT',
        spotTaxType: 'System charges fees',
        amount: '0',
        fee: '-0.75',
        balance: '31992',
        ts: '2026-05-08T10:00:00Z',
      },
      {
        recordId: '11',
        coin: 'USDT',
        spotTaxType: 'Brand new type',
        amount: '1.5',
        balance: '31993.5',
        ts: '2026-05-09T10:00:00Z',
      },
      // A fill whose USDT leg is in May and whose BTC leg is in June: booked leg by leg.
      {
        recordId: '12',
        coin: 'USDT',
        spotTaxType: 'Buy',
        amount: '-1500',
        balance: '30493.5',
        bizOrderId: 'o3',
        ts: '2026-05-31T23:59:59Z',
      },
      {
        recordId: '13',
        coin: 'BTC',
        spotTaxType: 'Buy',
        amount: '0.05',
        balance: '0.6498',
        bizOrderId: 'o3',
        ts: '2026-06-01T00:00:01Z',
      },
      { recordId: '14', coin: 'usdc.e', spotTaxType: 'Deposit', amount: '3', balance: '3', ts: '2026-05-10T10:00:00Z' },
    ]);
    const journal = await exportJournal(accountId, 'edges "quoted"', '2026-05-01', '2026-05-31');
    const check = beanCheck(journal.csvPath);
    expect(check.output).toBe('');
    expect(check.status).toBe(0);
    const text = journal.text;
    expect(text).toContain('option "title" "edges \\"quoted\\" 2026-05-01 to 2026-05-31"');
    expect(text).toMatch(/^2026-04-30 commodity X1INCH-[0-9A-F]{6}\n {2}exchange_coin: "1INCH"$/m);
    expect(text).toMatch(/^2026-04-30 commodity USDC\.E-[0-9A-F]{6}\n {2}exchange_coin: "usdc\.e"$/m);
    expect(text).toContain(
      [
        '2026-05-04 * "Sell: BTC for USDT"',
        '  record_ids: "4+5"',
        '  time_utc: "2026-05-04T10:00:00.000Z"',
        '  category: "trade"',
        '  biz_order_id: "o1"',
        '  Assets:Exchange:Spot:BTC  -0.5 BTC @@ 15000.25 USDT',
        '  Assets:Exchange:Spot:USDT  15000.25 USDT',
        '  Assets:Exchange:Spot:BTC  -0.0001 BTC',
        '  Expenses:Exchange:Fees:BTC  0.0001 BTC',
        '  Assets:Exchange:Spot:USDT  -7.5 USDT',
        '  Expenses:Exchange:Fees:USDT  7.5 USDT',
      ].join('\n'),
    );
    expect(text).toContain('  record_ids: "6+7+8"');
    expect(text).toContain('  Assets:Exchange:Spot:BTC  0.1 BTC @@ 3000 USDT');
    expect(text).toContain('  Assets:Exchange:Spot:BTC  -0.0001 BTC');
    expect(text).toMatch(/2026-05-07 ! "Buy"\n {2}record_ids: "9"[^]*?Equity:Exchange:Trade-Legs {2}-2 ETH/);
    expect(text).toMatch(/2026-05-09 ! "Brand new type"[^]*?Equity:Exchange:Unmapped {2}-1\.5 USDT/);
    expect(text).toMatch(/2026-05-31 \* "Buy"\n {2}record_ids: "12"[^]*?Equity:Exchange:Trade-Legs {2}1500 USDT/);
    expect(text).not.toContain('record_ids: "13"');
    expect(text).toContain('2026-06-01 balance Assets:Exchange:Spot:USDT  30493.500000000000000000 USDT');
    expect(text).toContain('2026-06-01 balance Assets:Exchange:Spot:BTC  0.599800000000000000 BTC');
    expect(journal.manifest.unpairedLegs).toBe(1);
    expect(journal.unpairedPath?.endsWith('.unpaired.beancount')).toBe(true);
    expect(journal.manifest.unmapped.values).toEqual({ 'spotTaxType=Brand new type': 1 });

    // June starts from May's balances and books the fill's other leg there.
    const june = await exportJournal(accountId, 'edges', '2026-06-01', '2026-06-30');
    expect(beanCheck(june.csvPath).status).toBe(0);
    expect(june.text).toMatch(/2026-06-01 \* "Buy"\n {2}record_ids: "13"[^]*?Equity:Exchange:Trade-Legs {2}-0\.05 BTC/);
    expect(june.text).toContain('2026-06-01 balance Assets:Exchange:Spot:BTC  0.599800000000000000 BTC');
  });
});
