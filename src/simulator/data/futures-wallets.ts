import { SPOT_COINS } from './coins.ts';
import type { ProductType } from './markets.ts';

/** One futures wallet of an account: a product type and one of its margin coins. */
export interface FuturesWallet {
  productType: ProductType;
  marginCoin: string;
}

/**
 * The simulator's futures wallets, in a fixed order (a record stores the index). USDT-margined and
 * USDC-margined futures hold one coin each; coin-margined ("mixed") futures take several margin
 * coins: every spot coin but USDT has a wallet there, so that every spot `Transfer in`/`Transfer
 * out` has a futures wallet on its other side (docs/exchange-api.md §5.6, simulator choices).
 */
export const FUTURES_WALLETS: readonly FuturesWallet[] = [
  { productType: 'USDT-FUTURES', marginCoin: 'USDT' },
  ...SPOT_COINS.filter((spec) => spec.coin !== 'USDT').map((spec): FuturesWallet => ({
    productType: 'COIN-FUTURES',
    marginCoin: spec.coin,
  })),
  { productType: 'USDC-FUTURES', marginCoin: 'USDC' },
];

export function walletIndex(productType: ProductType, marginCoin: string): number {
  return FUTURES_WALLETS.findIndex((w) => w.productType === productType && w.marginCoin === marginCoin);
}

/** The wallet a spot coin's transfers to and from futures go to. */
export function walletOfSpotCoin(coin: string): number {
  return walletIndex(coin === 'USDT' ? 'USDT-FUTURES' : 'COIN-FUTURES', coin);
}
