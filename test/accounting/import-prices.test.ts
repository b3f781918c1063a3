import { Readable } from 'node:stream';

import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { importPrices } from '../../src/accounting/prices/import-prices.ts';
import { ValidationError } from '../../src/errors/index.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const db = useTestDatabase('importprices');
let client: pg.Client;

const csv = (text: string) => Readable.from([text]);

async function stored() {
  const { rows } = await client.query<{ time: Date; base: string; quote: string; price: string; source: string }>(
    `SELECT time, base, quote, price::text AS price, source FROM price ORDER BY time, base, source`,
  );
  return rows.map((row) => `${row.time.toISOString()} ${row.base}/${row.quote} ${row.price} ${row.source}`);
}

async function refusal(text: string, source?: string): Promise<ValidationError> {
  const error: unknown = await importPrices(client, csv(text), { source }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ValidationError);
  return error as ValidationError;
}

beforeAll(async () => {
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});
beforeEach(async () => {
  await client.query('DELETE FROM price');
});
afterAll(async () => {
  await client.end();
});

describe('importPrices', () => {
  it("imports dates as the start of their UTC day (that date's rate) and times as given, exactly, and re-imports idempotently", async () => {
    const file = `date,base,quote,price,source
2026-01-31,btc,USD,104250.125,coingecko
2026-02-01,EUR,USD,1.0385,ecb
`;
    expect(await importPrices(client, csv(file))).toEqual({
      rows: 2,
      points: 2,
      inserted: 2,
      updated: 0,
      unchanged: 0,
    });
    expect(await stored()).toEqual([
      '2026-01-31T00:00:00.000Z BTC/USD 104250.125 coingecko',
      '2026-02-01T00:00:00.000Z EUR/USD 1.0385 ecb',
    ]);
    expect(await importPrices(client, csv(file))).toEqual({
      rows: 2,
      points: 2,
      inserted: 0,
      updated: 0,
      unchanged: 2,
    });
    const changed = file.replace('1.0385', '1.0386');
    expect(await importPrices(client, csv(changed))).toEqual({
      rows: 2,
      points: 2,
      inserted: 0,
      updated: 1,
      unchanged: 1,
    });
    expect((await stored())[1]).toBe('2026-02-01T00:00:00.000Z EUR/USD 1.0386 ecb');
  });

  it('takes time columns with an offset or in Unix ms, and --source for rows without one', async () => {
    const file = `\uFEFFTime;Base;Quote;Price
2026-03-01T12:00:00+01:00;ETH;USDT;3000.5
1772366400000;SOL;USDT;150
`.replaceAll(';', ',');
    expect(await importPrices(client, csv(file), { source: 'Kraken' })).toMatchObject({ inserted: 2 });
    expect(await stored()).toEqual([
      '2026-03-01T11:00:00.000Z ETH/USDT 3000.5 kraken',
      '2026-03-01T12:00:00.000Z SOL/USDT 150 kraken',
    ]);
  });

  it('refuses a bad row naming its line and field, and writes nothing of the file', async () => {
    const file = `date,base,quote,price,source
2026-01-01,BTC,USD,100,x
2026-01-02,BTC,USD,1e5,x
`;
    const error = await refusal(file);
    expect(error.field).toBe('line 3, price');
    expect(await stored()).toEqual([]);
  });

  it.each([
    ['date,base,quote,price,source\n2026-02-30,BTC,USD,1,x\n', 'line 2, date'],
    ['time,base,quote,price,source\n2026-01-01,BTC,USD,1,x\n', 'line 2, time'],
    ['time,base,quote,price,source\n2026-01-01T00:00:00,BTC,USD,1,x\n', 'line 2, time'],
    ['date,base,quote,price,source\n2026-01-01,BTC,BTC,1,x\n', 'line 2, quote'],
    ['date,base,quote,price,source\n2026-01-01,BTC,USD,0,x\n', 'line 2, price'],
    ['date,base,quote,price,source\n2026-01-01,BTC,USD,1,trade\n', 'line 2, source'],
    ['date,base,quote,price\n2026-01-01,BTC,USD,1\n', 'line 1'],
    ['date,time,base,quote,price,source\n', 'line 1'],
    ['date,base,quote,price,source,volume\n', 'line 1'],
    ['date,base,quote,price,source\n2026-01-01,BTC,USD,1\n', 'line 2'],
    [
      'date,base,quote,price,source\n2026-01-01,BTC,USD,1,x\n2026-01-02,BTC,USD,1,x\n2026-01-01,btc,usd,2,X\n',
      'line 4',
    ],
    ['', 'file'],
  ])('refuses %j at %s', async (file, field) => {
    expect((await refusal(file)).field).toBe(field);
    expect(await stored()).toEqual([]);
  });

  it('refuses --source trade', async () => {
    expect((await refusal('date,base,quote,price\n', 'trade')).field).toBe('--source');
  });
});

describe('importPrices from a path', () => {
  it('refuses a file that cannot be read, naming it', async () => {
    const error: unknown = await importPrices(client, '/nonexistent/prices.csv').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe('--file');
  });
});
