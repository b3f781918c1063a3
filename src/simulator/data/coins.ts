/** Coins of the spot finance records, with typical amount sizes (in coin units). */
export interface CoinSpec {
  coin: string;
  weight: number;
  min: number;
  max: number;
  /** Decimals an amount of this coin carries. */
  decimals: number;
}

export const SPOT_COINS: readonly CoinSpec[] = [
  { coin: 'USDT', weight: 0.32, min: 1, max: 5000, decimals: 6 },
  { coin: 'BTC', weight: 0.15, min: 0.0001, max: 0.5, decimals: 8 },
  { coin: 'ETH', weight: 0.15, min: 0.001, max: 5, decimals: 8 },
  { coin: 'SOL', weight: 0.1, min: 0.01, max: 100, decimals: 6 },
  { coin: 'XRP', weight: 0.08, min: 1, max: 5000, decimals: 4 },
  { coin: 'DOGE', weight: 0.08, min: 10, max: 50000, decimals: 4 },
  { coin: 'BGB', weight: 0.12, min: 1, max: 2000, decimals: 4 },
];

export const COIN_JSON: readonly string[] = SPOT_COINS.map((spec) => JSON.stringify(spec.coin));

export function coinIndex(coin: string): number {
  return SPOT_COINS.findIndex((spec) => spec.coin === coin);
}
