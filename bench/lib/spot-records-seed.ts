import { randomUUID } from 'node:crypto';

import pg from 'pg';

import { SPOT_TAX_TYPES } from '../../src/booking/spot-bookings.ts';

/**
 * One account with `rows` spot records, 864 ms apart from 2026-01-01 00:00 UTC (100,000 a UTC
 * day), written by one generate_series INSERT; returns the account's id.
 */
export async function seedSpotRecords(databaseUrl: string, rows: number): Promise<string> {
  const accountId = randomUUID();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO account (id, name, base_url, api_key, secret_enc, passphrase_enc, updated_at)
       VALUES ($1, 'bench', 'http://127.0.0.1:1', 'k', 'x', 'x', now())`,
      [accountId],
    );
    const types = Object.keys(SPOT_TAX_TYPES);
    // Realistic shapes: 18-digit ids, signed amounts of varying scale, fees, running balances, raw JSON.
    await client.query(
      `INSERT INTO spot_record (account_id, record_id, coin, spot_tax_type, amount, fee, balance, biz_order_id, ts, raw)
       SELECT $1::uuid, r.id, r.coin, r.type, r.amount, r.fee, r.balance, r.biz, r.ts,
              jsonb_build_object('id', r.id, 'coin', r.coin, 'spotTaxType', r.type, 'amount', r.amount::text,
                'fee', r.fee::text, 'balance', r.balance::text, 'bizOrderId', r.biz,
                'ts', (extract(epoch from r.ts) * 1000)::bigint::text)
       FROM (
         SELECT (1100000000000000000 + g)::text AS id,
                ($2::text[])[(1 + g % 4)::int] AS coin,
                ($3::text[])[(1 + g % cardinality($3::text[]))::int] AS type,
                round(((g * 7919) % 2000001 - 1000000)::numeric / 10000, (g % 9)::int) AS amount,
                CASE WHEN g % 3 = 0 THEN -round((g % 1000)::numeric / 1000000, 8) ELSE 0 END AS fee,
                round((g * 31)::numeric / 100, 8) AS balance,
                CASE WHEN g % 5 = 0 THEN '' ELSE (900000000000 + g / 2)::text END AS biz,
                timestamptz '2026-01-01 00:00:00+00' + (g - 1) * interval '864 milliseconds' AS ts
         FROM generate_series(1::bigint, $4::bigint) AS g
       ) AS r`,
      [accountId, ['BTC', 'ETH', 'USDT', 'SOL'], types, rows],
    );
    // Hint bits set and statistics taken now, so no measured run pays for them.
    await client.query('VACUUM (ANALYZE) spot_record');
  } finally {
    await client.end();
  }
  return accountId;
}
