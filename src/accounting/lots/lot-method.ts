import { ValidationError } from '../../errors/index.ts';

/**
 * How a disposal picks the lots it consumes (docs/reports.md, "realized-gains"):
 * - `fifo`: the oldest lot first;
 * - `lifo`: the newest lot first;
 * - `hifo`: the highest unit cost first (ties: the older lot), which realizes the smallest gain;
 * - `average`: one pool per coin, every unit at the pool's average cost.
 */
export const LOT_METHODS = ['fifo', 'lifo', 'hifo', 'average'] as const;
export type LotMethod = (typeof LOT_METHODS)[number];

export const DEFAULT_LOT_METHOD: LotMethod = 'fifo';

/** A lot held more than this many days is long-term unless asked otherwise (the usual one year). */
export const DEFAULT_LONG_TERM_DAYS = 365;

export function parseLotMethod(value: string | undefined, field = 'method'): LotMethod {
  if (value === undefined || value.trim() === '') return DEFAULT_LOT_METHOD;
  const method = value.trim().toLowerCase();
  if (!(LOT_METHODS as readonly string[]).includes(method)) {
    throw new ValidationError(field, `must be one of ${LOT_METHODS.join(', ')}`, value);
  }
  return method as LotMethod;
}
