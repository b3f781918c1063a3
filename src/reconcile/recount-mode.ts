import { ValidationError } from '../errors/index.ts';

/**
 * How much of the stored history a reconciliation re-reads from the exchange
 * to compare window counts: nothing, the windows finished recently (the
 * nightly default), every window, or `edge`: the recent ones less the spot
 * windows that had settled before they were read (the demo's first sync).
 */
export const RECOUNT_MODES = ['none', 'recent', 'all', 'edge'] as const;
export type RecountMode = (typeof RECOUNT_MODES)[number];

/**
 * `recent` re-counts the windows finished within this many days, and of them only those finished
 * since the account's last passed re-count began (count-check.ts), unless the run is a full check.
 */
export const RECENT_RECOUNT_DAYS = 3;

/**
 * `edge` leaves out a spot window that ended at least this long before its
 * read started. Spot records never change once published (the sync's own
 * lookback for them is 24 hours by default), so such a window held its final
 * history when read; what a re-read could still find, a record the store lost
 * or never kept, the balance chain finds with fewer requests: every stored
 * record must equal the previous one's balance plus its amount and fee, and
 * each coin's first and last records are checked against the exchange. The
 * chain cannot see a lost record whose amount plus fee is exactly 0: that is
 * what `edge` gives up against `recent`, which is why the nightly run keeps
 * `recent`.
 */
export const EDGE_SETTLED_DAYS = RECENT_RECOUNT_DAYS;

export function parseRecountMode(value: unknown, field = '--recount'): RecountMode {
  if (typeof value === 'string' && (RECOUNT_MODES as readonly string[]).includes(value)) return value as RecountMode;
  throw new ValidationError(field, `must be one of ${RECOUNT_MODES.join(', ')}`, value);
}
