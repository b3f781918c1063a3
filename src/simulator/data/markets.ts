/** Futures and spot markets the simulated exchange lists. */
export const PRODUCT_TYPES = ['USDT-FUTURES', 'COIN-FUTURES', 'USDC-FUTURES'] as const;
export type ProductType = (typeof PRODUCT_TYPES)[number];

export interface FuturesMarket {
  symbol: string;
  productType: ProductType;
  marginCoin: string;
  /** Typical price and the decimals prices carry. */
  price: number;
  priceDecimals: number;
  /** Typical position size range (base coin, or USD contracts for coin-margined). */
  minSize: number;
  maxSize: number;
  sizeDecimals: number;
  inverse: boolean;
}

export const FUTURES_MARKETS: readonly FuturesMarket[] = [
  m('BTCUSDT', 'USDT-FUTURES', 'USDT', 80_000, 1, 0.001, 2, 3),
  m('ETHUSDT', 'USDT-FUTURES', 'USDT', 3_000, 2, 0.01, 30, 2),
  m('SOLUSDT', 'USDT-FUTURES', 'USDT', 160, 3, 0.1, 500, 1),
  m('XRPUSDT', 'USDT-FUTURES', 'USDT', 1.2, 4, 10, 50_000, 0),
  m('DOGEUSDT', 'USDT-FUTURES', 'USDT', 0.2, 5, 100, 200_000, 0),
  m('BTCUSD', 'COIN-FUTURES', 'BTC', 80_000, 1, 10, 20_000, 0, true),
  m('ETHUSD', 'COIN-FUTURES', 'ETH', 3_000, 2, 10, 20_000, 0, true),
  m('BTCPERP', 'USDC-FUTURES', 'USDC', 80_000, 1, 0.001, 2, 3),
  m('ETHPERP', 'USDC-FUTURES', 'USDC', 3_000, 2, 0.01, 30, 2),
];

export const SPOT_SYMBOLS: readonly string[] = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'DOGEUSDT', 'BGBUSDT'];

export const ORDER_CATEGORIES = ['SPOT', 'MARGIN', 'USDT-FUTURES', 'COIN-FUTURES', 'USDC-FUTURES'] as const;
export type OrderCategory = (typeof ORDER_CATEGORIES)[number];

/** Symbols orders can be placed on, per category. */
export function symbolsOf(category: OrderCategory): string[] {
  if (category === 'SPOT' || category === 'MARGIN') return [...SPOT_SYMBOLS];
  return FUTURES_MARKETS.filter((market) => market.productType === category).map((market) => market.symbol);
}

function m(
  symbol: string,
  productType: ProductType,
  marginCoin: string,
  price: number,
  priceDecimals: number,
  minSize: number,
  maxSize: number,
  sizeDecimals: number,
  inverse = false,
): FuturesMarket {
  return { symbol, productType, marginCoin, price, priceDecimals, minSize, maxSize, sizeDecimals, inverse };
}
