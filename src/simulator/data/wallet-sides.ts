import { SPOT_COINS } from './coins.ts';

/** Where a spot `Transfer in`/`Transfer out` goes to or comes from: another wallet of the same account. */
export type TransferSide = 'futures' | 'margin-crossed' | 'margin-isolated' | 'p2p';

/** The coins of the isolated margin account (its one pair, BTCUSDT). */
export const ISOLATED_COINS: readonly string[] = ['BTC', 'USDT'];

const ID_FACTOR = 1000;

/**
 * The other side of one spot transfer, decided by its instant alone (so every generator agrees
 * without sharing state): about one in ten goes to the crossed margin account, one in ten to the
 * isolated one (its coins only, else crossed), one in ten to the P2P wallet, the rest to futures
 * (src/simulator/README.md, "Margin and P2P ledgers").
 */
export function transferSide(spotId: number, coin: number): TransferSide {
  const slot = Math.floor(spotId / ID_FACTOR) % 10;
  if (slot === 0) return 'margin-crossed';
  if (slot === 1) return ISOLATED_COINS.includes(SPOT_COINS[coin]!.coin) ? 'margin-isolated' : 'margin-crossed';
  if (slot === 2) return 'p2p';
  return 'futures';
}
