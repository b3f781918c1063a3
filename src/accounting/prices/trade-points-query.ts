import { ledgerEntriesCte } from '../../booking/ledger-entries.ts';
import { SqlParams } from '../../booking/sql-params.ts';
import { PREFERRED_QUOTES } from './latest-prices.ts';

/** The whole stored history: trades are paired wherever their legs lie (ledger-entries.ts). */
const WHOLE_HISTORY = { start: new Date('1970-01-01T00:00:00Z'), end: new Date('9999-12-31T00:00:00Z') };
/** Marks an entry whose sent amount includes the given side's fee (ledger-entries.ts, both sides with a fee). */
const SENT_INCLUDES_FEE = '% (sent includes its fee %';

/** One implied point before its quotient: the summed amounts of a pair's fills in one millisecond. */
export interface TradePointRow {
  ms: string;
  base: string;
  quote: string;
  base_amount: string;
  quote_amount: string;
}

/**
 * The statement giving the account's trade points (refresh-trade-prices.ts says how they are
 * derived), ordered by time, base, quote. With `instants`, only the points at those instants
 * (Unix ms): the trades dated there, each paired from all of its order's legs, so a point comes
 * out exactly as the whole-history statement gives it.
 */
export function tradePointsQuery(accountId: string, instants?: readonly string[]): { text: string; values: unknown[] } {
  const p = new SqlParams();
  const cte = ledgerEntriesCte(p, { accountId, period: WHOLE_HISTORY, instants });
  const quotes = p.add(PREFERRED_QUOTES, 'text[]');
  const rank = (coin: string) => `coalesce(array_position(${quotes}, ${coin}), 1000)`;
  // The quote: the better-ranked coin; at a tie (neither listed) the alphabetically later one.
  const receivedIsQuote = `(${rank('received_coin')} < ${rank('sent_coin')}
      OR (${rank('received_coin')} = ${rank('sent_coin')} AND received_coin > sent_coin))`;
  // An entry is dated by its earliest leg: with instants, an order found through one of them may
  // have fills dated elsewhere, whose points this refresh does not touch.
  const dated = instants
    ? `AND ts = ANY(ARRAY(SELECT timestamptz 'epoch' + ms * interval '1 millisecond'
                            FROM unnest(${p.add(instants, 'bigint[]')}) AS ms))`
    : '';
  const text = `${cte},
    oriented AS (
      SELECT ts,
             upper(CASE WHEN ${receivedIsQuote} THEN sent_coin ELSE received_coin END) AS base,
             upper(CASE WHEN ${receivedIsQuote} THEN received_coin ELSE sent_coin END) AS quote,
             CASE WHEN ${receivedIsQuote} THEN sent_amount ELSE received_amount END AS base_amount,
             CASE WHEN ${receivedIsQuote} THEN received_amount ELSE sent_amount END AS quote_amount
      FROM entries
      WHERE category = 'trade' AND flag IS NULL AND sent_coin IS NOT NULL AND received_coin IS NOT NULL
        AND sent_amount > 0 AND received_amount > 0 AND spot_types NOT LIKE ${p.add(SENT_INCLUDES_FEE)} ${dated}
    )
    SELECT (extract(epoch FROM ts) * 1000)::bigint::text AS ms, base, quote,
           sum(base_amount)::text AS base_amount, sum(quote_amount)::text AS quote_amount
    FROM oriented
    GROUP BY ts, base, quote
    ORDER BY ts, base, quote`;
  return { text, values: p.values };
}
