import { Decimal } from 'decimal.js';

import { ValidationError } from '../../errors/index.ts';

/** One price as callers give it: 1 `base` is worth `price` units of `quote` at `at`. */
export interface PricePointInput {
  readonly at: Date;
  readonly base: string;
  readonly quote: string;
  readonly price: string;
  /** `trade` (implied by the account's own fills) or the name an import gave, e.g. `ecb`. */
  readonly source: string;
}

/** A checked point, as the book keeps it. */
export interface PricePoint {
  readonly atMs: number;
  readonly base: string;
  readonly quote: string;
  readonly price: Decimal;
  readonly source: string;
}

/** The source of prices implied by the account's own trades; every other source is an import. */
export const TRADE_SOURCE = 'trade';

const COIN = /^[A-Z0-9]{1,32}$/;
const SOURCE = /^[a-z0-9][a-z0-9._-]{0,39}$/;
const PRICE = /^\d+(\.\d+)?$/;

/** A coin or currency code as stored: trimmed, upper case, letters and digits. */
export function coinCode(field: string, value: string): string {
  const code = value.trim().toUpperCase();
  if (!COIN.test(code))
    throw new ValidationError(field, 'must be a coin or currency code (1-32 letters or digits)', value);
  return code;
}

/** A source name as stored: lower case letters, digits, `.`, `_`, `-`. */
export function sourceName(field: string, value: string): string {
  const name = value.trim().toLowerCase();
  if (!SOURCE.test(name)) {
    throw new ValidationError(
      field,
      'must be 1-40 characters a-z, 0-9, ".", "_" or "-", starting with a letter or digit',
      value,
    );
  }
  return name;
}

/** A price as stored: a plain positive decimal (no sign, no exponent), never zero. */
export function priceValue(field: string, value: string): Decimal {
  const text = value.trim();
  if (!PRICE.test(text)) throw new ValidationError(field, 'must be a positive decimal number such as 64250.5', value);
  const price = new Decimal(text);
  if (price.isZero()) throw new ValidationError(field, 'must be greater than zero', value);
  return price;
}

/** Checks one caller-given point; `field` prefixes the field names in errors (e.g. `points[3]`). */
export function checkPoint(field: string, input: PricePointInput): PricePoint {
  const atMs = input.at instanceof Date ? input.at.getTime() : Number.NaN;
  if (!Number.isFinite(atMs)) throw new ValidationError(`${field}.at`, 'must be a valid Date', input.at);
  const base = coinCode(`${field}.base`, input.base);
  const quote = coinCode(`${field}.quote`, input.quote);
  if (base === quote) throw new ValidationError(`${field}.quote`, 'must differ from base', input.quote);
  return {
    atMs,
    base,
    quote,
    price: priceValue(`${field}.price`, input.price),
    source: sourceName(`${field}.source`, input.source),
  };
}

/** The source a Valuation reports: `trade`, or `import:<name>` for imported market data. */
export function valuationSource(source: string): string {
  return source === TRADE_SOURCE ? TRADE_SOURCE : `import:${source}`;
}
