import { TRADE_SOURCE } from './price-point.ts';

/**
 * Rates on days without one (issue 42 item 5). The Bank of England and the ECB publish their
 * rates on working days only; a transaction on a Saturday, a Sunday or a bank holiday is valued
 * with the last rate published on or before its day, never a later one, and at most
 * RATE_CARRY_DAYS days back. HMRC asks for "an appropriate valuation for the transaction using a
 * consistent methodology", its details kept (CRYPTO23000); this is one rule for every day and is
 * stated in every valuing export's manifest. Germany asks the same of a rate chosen for a day
 * (a consistent, documented method); the ECB's reference rates are published on TARGET working days.
 * Four days: the longest run without a publication in the BoE's and the ECB's calendars is four
 * days (Thursday's rate valuing Good Friday, the weekend and Easter Monday; a Friday's over a
 * weekend Christmas and Boxing Day with their substitute days),
 * so a longer gap is a series missing a day, which stays unpriced and so is seen.
 */
export const RATE_CARRY_DAYS = 4;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * How old an imported rate of a fiat pair may be: a rate of date D (stamped at D's first instant)
 * values every instant before D + RATE_CARRY_DAYS + 1 days, i.e. through the end of day D + 4.
 * Elapsed time: across a clock change the bound moves by the hour the day gained or lost.
 */
export const RATE_CARRY_MS = (RATE_CARRY_DAYS + 1) * DAY_MS;

/** What a valuation's source says when its rate was carried past the tolerance: `import:ecb~carried`. */
export const CARRIED_MARK = '~carried';

// ISO 4217 codes (Node's Intl list): the currencies central banks publish rates of on working days.
const FIAT: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

export function isFiat(code: string): boolean {
  return FIAT.has(code);
}

/**
 * Whether a point may be carried past the tolerance: an imported rate (never the account's own
 * trade, whose instant is its own) of a pair with a fiat currency on either side (USD/GBP, a
 * USDT/EUR series). Coin closes against coins (BTC/USDT) trade every day: the tolerance alone.
 */
export function carries(point: { readonly base: string; readonly quote: string; readonly source: string }): boolean {
  return point.source !== TRADE_SOURCE && (isFiat(point.base) || isFiat(point.quote));
}
