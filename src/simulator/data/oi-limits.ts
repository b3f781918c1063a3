import { hashString, hashUnit } from '../prng.ts';
import { FUTURES_MARKETS, type ProductType } from './markets.ts';

export interface OpenInterestLimit {
  symbol: string;
  singleUserLimit: string;
  masterSubLimit: string;
  marketMakerLimit: string;
}

/** The limit of a listed symbol of that category, or undefined when the category does not list it. */
export function openInterestLimit(seed: number, symbol: string, category: ProductType): OpenInterestLimit | undefined {
  const market = FUTURES_MARKETS.find((entry) => entry.symbol === symbol && entry.productType === category);
  if (!market) return undefined;
  // Limits are in base-coin quantity: a few million USD of notional per user.
  const notional = 2_000_000 + Math.floor(hashUnit(seed, hashString(symbol), 1) * 8) * 1_000_000;
  const unitPrice = market.inverse ? 1 : market.price;
  const single = Math.max(1, Math.round(notional / unitPrice));
  return {
    symbol,
    singleUserLimit: String(single),
    masterSubLimit: String(single * 3),
    marketMakerLimit: String(single * 20),
  };
}
