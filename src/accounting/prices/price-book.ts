import type { Decimal } from 'decimal.js';

/** A value in the valuation currency and where it came from. */
export interface Valuation {
  /** quantity x price, exact. */
  readonly value: Decimal;
  /** Units of the valuation currency per unit of the coin (a product when converted through a quote). */
  readonly price: Decimal;
  /** The time of the (oldest) price point used: never after the instant valued. */
  readonly priceAt: Date;
  /** The price's source(s), e.g. `trade`, `import:ecb`, or `trade*import:ecb` through a quote. */
  readonly source: string;
}

/**
 * Values coins in one valuation currency (config VALUATION_CURRENCY, default USDT) from the `price`
 * table: the nearest earlier point within the tolerance (config PRICE_TOLERANCE), directly
 * (coin/currency) or through one quote (coin/USDT x USDT/EUR). Beyond the tolerance there is no
 * value: `null` means unpriced, which callers list and never guess. The currency itself is worth
 * exactly its quantity.
 *
 * Calls come in non-decreasing `at` order (lot matching walks the history forwards), so a book
 * reads prices forwards and keeps only the latest point per pair: memory stays flat however long
 * the history. A call earlier than the previous one is a programming error and throws.
 */
export interface PriceBook {
  readonly currency: string;
  value(coin: string, quantity: Decimal, at: Date): Promise<Valuation | null>;
  /** Releases the book's cursor(s). */
  close(): Promise<void>;
}
