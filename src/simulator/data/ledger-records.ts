import { SPOT_COINS } from './coins.ts';
import { formatFixed } from './fixed.ts';
import { type MarginRow, symbolOf } from './margin-generator.ts';
import type { P2pRow } from './p2p-generator.ts';

/** A margin-record item as the API serves it (docs/exchange-api.md §5.8): strings, amount signed, total the balance after. */
export interface MarginRecord {
  id: string;
  coin: string;
  symbol: string;
  marginTaxType: string;
  amount: string;
  fee: string;
  total: string;
  ts: string;
}

/** A p2p-record item as the API serves it (docs/exchange-api.md §5.9): `total` the quantity, unsigned. */
export interface P2pRecord {
  id: string;
  coin: string;
  p2pTaxType: string;
  total: string;
  ts: string;
}

export function marginRecord(row: MarginRow): MarginRecord {
  return {
    id: String(row.id),
    coin: SPOT_COINS[row.coin]!.coin,
    symbol: symbolOf(row),
    marginTaxType: row.type,
    amount: formatFixed(row.amount),
    fee: formatFixed(row.fee),
    total: formatFixed(row.total),
    ts: String(row.ts),
  };
}

export function p2pRecord(row: P2pRow): P2pRecord {
  return {
    id: String(row.id),
    coin: SPOT_COINS[row.coin]!.coin,
    p2pTaxType: row.type,
    total: formatFixed(row.total),
    ts: String(row.ts),
  };
}
