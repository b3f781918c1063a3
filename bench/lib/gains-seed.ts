import { randomUUID } from 'node:crypto';

import pg from 'pg';

/**
 * The realized-gains benchmarks' history, generated in the database by one INSERT: `rows` spot
 * records `spacingMs` apart from `start` (default 2026-01-01 00:00 UTC). They are trades in blocks of ten orders of
 * one coin (BTC, ETH, SOL in turn): four buys against USDT (fee in the coin bought), four sells of
 * exactly what those bought (fee in USDT), an interest payment in the coin (income, priced) and a
 * withdrawal of as much; beside them USDT interest and fee records (nothing to value). The
 * holdings stay small, as an account's do, while the history grows. Prices are an imported source
 * with a point per coin every `priceEveryMinutes` over the records' span, around each coin's
 * trading price.
 */
export interface GainsSeed {
  readonly rows: number;
  readonly spacingMs: number;
  readonly priceEveryMinutes: number;
  /** ISO instant of the first record and the first price (default 2026-01-01T00:00:00Z). */
  readonly start?: string;
}

// Two records per k (legs 1 and 0); phase = k % 10 within a block of ten of one coin.
const SEED = `
  INSERT INTO spot_record (account_id, record_id, coin, spot_tax_type, amount, fee, balance, biz_order_id, ts, raw)
  SELECT $1::uuid, r.id, r.coin, r.type, r.amount, r.fee, 0, r.biz, r.ts,
         jsonb_build_object('id', r.id, 'coin', r.coin, 'spotTaxType', r.type, 'amount', r.amount::text,
           'fee', r.fee::text, 'bizOrderId', r.biz)
  FROM generate_series(1::bigint, $2::bigint) AS g
  CROSS JOIN LATERAL (SELECT (g + 1) / 2 AS k, g % 2 AS leg) AS a
  CROSS JOIN LATERAL (SELECT (ARRAY['BTC', 'ETH', 'SOL'])[1 + (k / 10) % 3] AS coin, k % 10 AS phase,
      round((ARRAY[60000, 3000, 150])[1 + (k / 10) % 3]::numeric
            * (1 + ((k * 7919) % 2001 - 1000)::numeric / 10000), 2) AS price,
      (ARRAY[0.01, 0.2, 5])[1 + (k / 10) % 3]::numeric * (1 + (k % 10) % 4) AS qty) AS b
  CROSS JOIN LATERAL (SELECT
      (1200000000000000000 + g)::text AS id,
      $4::timestamptz + (g - 1) * ($3::bigint * interval '1 millisecond') AS ts,
      CASE WHEN phase < 8 THEN (800000000000 + k)::text ELSE '' END AS biz,
      CASE WHEN phase < 4 AND leg = 1 THEN 'USDT' WHEN phase < 4 THEN coin
           WHEN phase < 8 AND leg = 1 THEN coin WHEN phase < 8 THEN 'USDT'
           WHEN leg = 1 THEN coin ELSE 'USDT' END AS coin,
      CASE WHEN phase < 4 THEN 'Buy' WHEN phase < 8 THEN 'Sell' WHEN phase = 8 THEN 'Interest'
           WHEN leg = 1 THEN 'Withdrawal' ELSE 'Transaction fee deduct' END AS type,
      CASE WHEN phase < 4 AND leg = 1 THEN -round(qty * price, 6) WHEN phase < 4 THEN qty
           WHEN phase < 8 AND leg = 1 THEN -(qty - qty / 1000) WHEN phase < 8 THEN round((qty - qty / 1000) * price, 6)
           WHEN phase = 8 AND leg = 1 THEN qty / 100 WHEN phase = 8 THEN 1
           WHEN leg = 1 THEN -qty / 100 ELSE 0 END AS amount,
      CASE WHEN phase < 4 AND leg = 0 THEN -(qty / 1000)
           WHEN phase BETWEEN 4 AND 7 AND leg = 0 THEN -round((qty - qty / 1000) * price / 1000, 6)
           WHEN phase = 9 AND leg = 0 THEN -0.1 ELSE 0 END AS fee) AS r`;

// One imported point per coin every $2 minutes over the records' span, around each coin's trading price.
const PRICES = `
  INSERT INTO price (time, base, quote, price, source)
  SELECT $3::timestamptz + m * ($2::bigint * interval '1 minute'), c.coin, 'USDT',
         round(c.base * (1 + ((m * 7919) % 2001 - 1000)::numeric / 10000), 2), 'bench'
  FROM generate_series(0::bigint, $1::bigint) AS m
  CROSS JOIN (VALUES ('BTC', 60000), ('ETH', 3000), ('SOL', 150)) AS c(coin, base)`;

export async function seedGains(databaseUrl: string, seed: GainsSeed): Promise<{ accountId: string; prices: number }> {
  const accountId = randomUUID();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO account (id, name, base_url, api_key, secret_enc, passphrase_enc, updated_at)
       VALUES ($1, $2, 'http://127.0.0.1:1', 'k', 'x', 'x', now())`,
      [accountId, `bench-${accountId.slice(0, 8)}`],
    );
    const start = seed.start ?? '2026-01-01T00:00:00Z';
    await client.query(SEED, [accountId, seed.rows, seed.spacingMs, start]);
    await client.query('ANALYZE spot_record');
    const spanMinutes = (seed.rows * seed.spacingMs) / 60_000;
    const points = Math.ceil(spanMinutes / seed.priceEveryMinutes);
    const { rowCount } = await client.query(PRICES, [points, seed.priceEveryMinutes, start]);
    await client.query('ANALYZE price');
    return { accountId, prices: rowCount ?? 0 };
  } finally {
    await client.end();
  }
}
