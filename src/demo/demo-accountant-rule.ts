import { Decimal } from 'decimal.js';

/** The source named in the demo's accountant files: synthetic, and named so in every lot and sale. */
export const SYNTHETIC_ACCOUNTANT_SOURCE = 'synthetic-demo-accountant';

/** The filing currencies the files supply figures in: pounds price `--method uk`, euros `--method de`. */
export const ACCOUNTANT_CURRENCIES = ['GBP', 'EUR'] as const;

/**
 * THE RULE (synthetic, stated once): a coin moved in was bought COST_FACTOR of its market value
 * on the day it arrived, ACQUIRED_DAYS_BEFORE days before it arrived; a P2P sell fetched
 * PROCEEDS_FACTOR of its market value on the day it was sold. A market value is quantity x the
 * coin's USDT price (the imported daily closes; USDT itself 1) x the USDT rate of the filing
 * currency (the imported synthetic fiat series), each the point at or before the instant (else the
 * first after), rounded to cents half to even. Nothing here is anyone's bank statement.
 */
export const COST_FACTOR = '0.9';
export const ACQUIRED_DAYS_BEFORE = 30;
export const PROCEEDS_FACTOR = '0.98';

const DAY_MS = 86_400_000;

/** A deposit or P2P buy (coins moved in, cost unknown), or a P2P sell (proceeds unknown). */
export interface DemoMove {
  /** As the gains reports name it (`p2p:<id>` for a P2P sell). */
  readonly recordId: string;
  readonly coin: string;
  /** Exact, as stored (a positive plain decimal). */
  readonly quantity: string;
  readonly atMs: number;
}

/** One price series (base/quote), its points in time order. */
export interface PricePoint {
  readonly ms: number;
  readonly price: string;
}

/** `<base>/<quote>` -> the series' points, in time order. */
export type PriceSeries = ReadonlyMap<string, readonly PricePoint[]>;

/** The point at or before `ms` (else the first after); undefined for a series not there. */
function priceAt(series: PriceSeries, base: string, quote: string, ms: number): Decimal | undefined {
  if (base === quote) return new Decimal(1);
  const points = series.get(`${base}/${quote}`);
  if (points === undefined || points.length === 0) return undefined;
  let lo = 0;
  let hi = points.length - 1;
  // The last point at or before ms, by bisection.
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (points[mid]!.ms <= ms) lo = mid;
    else hi = mid - 1;
  }
  return new Decimal(points[lo]!.price);
}

/** quantity x USDT price x fiat rate x factor, in cents; undefined when a price is missing. */
export function syntheticValue(
  series: PriceSeries,
  move: DemoMove,
  currency: string,
  factor: string,
): string | undefined {
  const close = priceAt(series, move.coin, 'USDT', move.atMs);
  const rate = priceAt(series, 'USDT', currency, move.atMs);
  if (close === undefined || rate === undefined) return undefined;
  return new Decimal(move.quantity)
    .times(close)
    .times(rate)
    .times(factor)
    .toDecimalPlaces(2, Decimal.ROUND_HALF_EVEN)
    .toFixed(2);
}

const plainQuantity = (q: string) => new Decimal(q).toFixed();

export interface SyntheticFile {
  readonly csv: string;
  /** The moves a row was written for, and those left out (a price missing: they stay unknown). */
  readonly rows: number;
  readonly covered: number;
  readonly skipped: number;
}

/**
 * The cost-basis file (`ledgerline cost-basis import` columns) for the coins moved in: per move and
 * filing currency one lot, by THE RULE above. Moves of a coin at one instant are one lot (the file
 * takes no row twice).
 */
export function syntheticCostBasisCsv(moves: readonly DemoMove[], series: PriceSeries): SyntheticFile {
  const merged = new Map<string, DemoMove & { ids: string[] }>();
  for (const m of moves) {
    const key = `${m.coin}|${m.atMs}`;
    const before = merged.get(key);
    merged.set(
      key,
      before === undefined
        ? { ...m, ids: [m.recordId] }
        : {
            ...before,
            quantity: new Decimal(before.quantity).plus(m.quantity).toFixed(),
            ids: [...before.ids, m.recordId],
          },
    );
  }
  const lines = ['coin,quantity,acquired_at,cost,currency,source,note'];
  let covered = 0;
  let skipped = 0;
  for (const m of merged.values()) {
    const costs = ACCOUNTANT_CURRENCIES.map((c) => [c, syntheticValue(series, m, c, COST_FACTOR)] as const);
    if (costs.some(([, cost]) => cost === undefined)) {
      skipped += m.ids.length;
      continue;
    }
    covered += m.ids.length;
    const acquired = new Date(m.atMs - ACQUIRED_DAYS_BEFORE * DAY_MS).toISOString();
    for (const [currency, cost] of costs) {
      const note = `SYNTHETIC: acquired ${ACQUIRED_DAYS_BEFORE} days before ${m.ids.join(' ')} for ${COST_FACTOR} x its value on arrival`;
      lines.push(
        `${m.coin},${plainQuantity(m.quantity)},${acquired},${cost},${currency},${SYNTHETIC_ACCOUNTANT_SOURCE},${note}`,
      );
    }
  }
  return { csv: `${lines.join('\n')}\n`, rows: lines.length - 1, covered, skipped };
}

/** The proceeds file (`ledgerline proceeds import` columns): per P2P sell and filing currency one row. */
export function syntheticProceedsCsv(sells: readonly DemoMove[], series: PriceSeries): SyntheticFile {
  const lines = ['record_id,proceeds,currency,source,note'];
  let covered = 0;
  let skipped = 0;
  for (const s of sells) {
    const proceeds = ACCOUNTANT_CURRENCIES.map((c) => [c, syntheticValue(series, s, c, PROCEEDS_FACTOR)] as const);
    if (proceeds.some(([, p]) => p === undefined)) {
      skipped += 1;
      continue;
    }
    covered += 1;
    for (const [currency, p] of proceeds) {
      lines.push(
        `${s.recordId},${p},${currency},${SYNTHETIC_ACCOUNTANT_SOURCE},SYNTHETIC: ${PROCEEDS_FACTOR} x its market value when sold`,
      );
    }
  }
  return { csv: `${lines.join('\n')}\n`, rows: lines.length - 1, covered, skipped };
}
