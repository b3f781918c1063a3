import type pg from 'pg';

import type { RunningSimulator } from '../../src/simulator/index.ts';

/**
 * The database's copy of each stream and the simulator's ground truth, as
 * comparable, sorted lists of the exchange's own strings (every field, exact
 * decimals as text, times as Unix ms).
 */
export async function storedSpot(pool: pg.Pool, accountId: string): Promise<string[]> {
  const result = await pool.query(
    `SELECT concat_ws('|', record_id, coin, spot_tax_type, amount::text, fee::text, balance::text, biz_order_id,
              (extract(epoch from ts) * 1000)::bigint) AS line
       FROM spot_record WHERE account_id = $1 ORDER BY record_id`,
    [accountId],
  );
  return result.rows.map((r) => r.line as string).sort();
}

export function truthSpot(sim: RunningSimulator): string[] {
  return sim
    .truth('spot')
    .map((r) => [r.id, r.coin, r.spotTaxType, r.amount, r.fee, r.balance, r.bizOrderId, r.ts].join('|'))
    .sort();
}

export async function storedTransfers(pool: pg.Pool, accountId: string): Promise<string[]> {
  const result = await pool.query(
    `SELECT concat_ws('|', sub_uid, tx_id, coin, type, sub_type::text, amount::text, status::text,
              (extract(epoch from ts) * 1000)::bigint) AS line
       FROM broker_transfer WHERE account_id = $1 ORDER BY tx_id, type`,
    [accountId],
  );
  return result.rows.map((r) => r.line as string).sort();
}

export function truthTransfers(sim: RunningSimulator, since = 0): string[] {
  return sim
    .truth('transfers')
    .filter((r) => Number(r.ts) >= since)
    .map((r) => [r.uid, r.txId, r.coin, r.type, r.subType, r.amount, r.status, r.ts].join('|'))
    .sort();
}

const POSITION_FIELDS = [
  'symbol',
  'marginCoin',
  'holdSide',
  'posMode',
  'marginMode',
  'openAvgPrice',
  'closeAvgPrice',
  'openTotalPos',
  'closeTotalPos',
  'pnl',
  'netProfit',
  'totalFunding',
  'openFee',
  'closeFee',
] as const;

export async function storedPositions(pool: pg.Pool, accountId: string): Promise<string[]> {
  const result = await pool.query(
    `SELECT concat_ws('|', position_id, symbol, margin_coin, hold_side::text, pos_mode::text, margin_mode::text,
              open_avg_price::text, close_avg_price::text, open_total_pos::text, close_total_pos::text, pnl::text,
              net_profit::text, total_funding::text, open_fee::text, close_fee::text,
              (extract(epoch from created_time) * 1000)::bigint, (extract(epoch from updated_time) * 1000)::bigint) AS line
       FROM futures_position WHERE account_id = $1 ORDER BY position_id`,
    [accountId],
  );
  return result.rows.map((r) => r.line as string).sort();
}

/** Positions the exchange still serves: updated at or after `since` (the 3-month horizon). */
export function truthPositions(sim: RunningSimulator, since: number): string[] {
  return sim
    .truth('positions')
    .map((r) => r as unknown as Record<string, string>)
    .filter((r) => Number(r.utime ?? r.uTime) >= since)
    .map((r) => [r.positionId, ...POSITION_FIELDS.map((f) => r[f]), r.ctime ?? r.cTime, r.utime ?? r.uTime].join('|'))
    .sort();
}

export async function storedFuturesLedger(pool: pg.Pool, accountId: string): Promise<string[]> {
  const result = await pool.query(
    `SELECT concat_ws('|', product_type::text, record_id, symbol, margin_coin, future_tax_type, amount::text, fee::text,
              (extract(epoch from ts) * 1000)::bigint) AS line
       FROM futures_ledger_record WHERE account_id = $1 ORDER BY record_id`,
    [accountId],
  );
  return result.rows.map((r) => r.line as string).sort();
}

/** The product type the simulator keeps a margin coin's futures wallet under. */
export function simulatorProductType(marginCoin: string): string {
  return marginCoin === 'USDT' ? 'USDT-FUTURES' : marginCoin === 'USDC' ? 'USDC-FUTURES' : 'COIN-FUTURES';
}

export function truthFuturesLedger(sim: RunningSimulator, since = 0): string[] {
  return sim
    .truth('futures-ledger')
    .filter((r) => Number(r.ts) >= since)
    .map((r) =>
      [simulatorProductType(r.marginCoin), r.id, r.symbol, r.marginCoin, r.futureTaxType, r.amount, r.fee, r.ts].join(
        '|',
      ),
    )
    .sort();
}

export async function storedMarginLedger(pool: pg.Pool, accountId: string): Promise<string[]> {
  const result = await pool.query(
    `SELECT concat_ws('|', record_id, coin, coalesce(symbol, ''), margin_tax_type, amount::text, fee::text,
              total::text, (extract(epoch from ts) * 1000)::bigint) AS line
       FROM margin_ledger_record WHERE account_id = $1 ORDER BY record_id`,
    [accountId],
  );
  return result.rows.map((r) => r.line as string).sort();
}

export function truthMarginLedger(sim: RunningSimulator, since = 0): string[] {
  return sim
    .truth('margin-ledger')
    .filter((r) => Number(r.ts) >= since)
    .map((r) => [r.id, r.coin, r.symbol, r.marginTaxType, r.amount, r.fee, r.total, r.ts].join('|'))
    .sort();
}

export async function storedP2pLedger(pool: pg.Pool, accountId: string): Promise<string[]> {
  const result = await pool.query(
    `SELECT concat_ws('|', record_id, coin, p2p_tax_type, total::text, (extract(epoch from ts) * 1000)::bigint) AS line
       FROM p2p_ledger_record WHERE account_id = $1 ORDER BY record_id`,
    [accountId],
  );
  return result.rows.map((r) => r.line as string).sort();
}

export function truthP2pLedger(sim: RunningSimulator, since = 0): string[] {
  return sim
    .truth('p2p-ledger')
    .filter((r) => Number(r.ts) >= since)
    .map((r) => [r.id, r.coin, r.p2pTaxType, r.total, r.ts].join('|'))
    .sort();
}
