import { createHash } from 'node:crypto';

import { bookingArrays } from '../../booking/spot-bookings.ts';
import { MONEY_PLACES } from '../lots/lot-arithmetic.ts';
import { TREATMENTS } from '../treatments/treatment-table.ts';
import { type GainsMethod, RULES_VERSION } from './gains-method.ts';

/**
 * What a walk's lot state depends on besides the stored records and prices: a checkpoint is only
 * ever used by a walk of the same key (gains_checkpoint's unique key).
 *
 * Bump WALK_CODE_VERSION whenever a change to the walk (walk-history.ts), the lot engine
 * (src/accounting/lots), the ledger entries (src/booking/ledger-entries.ts, trade-orders.ts) or the
 * price book's lookup changes what a walk computes: checkpoints written by the older code then
 * stop matching. The booking and treatment tables, the rules' version and the money precision are hashed in too,
 * so a change to them needs no bump.
 */
// 2: the treatment table (fees at market value, deposits of unknown cost, the futures wallet walked).
// 3: a futures transfer with no spot side is a deposit (unknown cost) or a withdrawal (entry-treatment.ts).
// 4: the margin and P2P wallets walked (wallet-entries.ts).
// 5: a lot acquired by a record to review (margin `compensate`) carries its flag to the rows consuming it.
// 6: a futures loss's fee disposed of at market value; margin borrow / repay an acquisition and a
//    disposal at market value; disposals carry their incidental costs (issue 42).
// 7: an imported fiat rate values the days without one, up to RATE_CARRY_DAYS (rate-carry.ts).
export const WALK_CODE_VERSION = 7;

export interface CheckpointKey {
  readonly accountId: string;
  readonly method: GainsMethod;
  readonly currency: string;
  readonly toleranceMs: number;
  readonly walkVersion: string;
}

/**
 * Whether a method's walk can resume from a stored state. The lot methods and `de` (the same FIFO
 * lot engine, in euros; the one-year test and the Freigrenze are applied to its matches, not to
 * its state) hold nothing but open lots, which a checkpoint stores exactly.
 *
 * `uk` cannot, and falls back to the full walk: HMRC's matcher (uk-matching.ts) holds each day's
 * disposals back until the 30 days after it are known, so its state at an instant includes
 * disposals whose matches depend on acquisitions after the instant, the days still open, and the
 * section 104 pools, which the 30-day rule keeps acquisitions out of; the walk also reads 31 days
 * past the period's end. Storing all that exactly is possible but is not a plain lot list, and a
 * mistake would misstate a UK return: until it is built and proved like the lot engine's, the
 * conservative answer is the full walk (its cost is the history's, as before).
 */
export function checkpointable(method: GainsMethod): boolean {
  return method !== 'uk';
}

/** The key of a walk's checkpoints, or null for a method that is never checkpointed. */
export function checkpointKey(
  accountId: string,
  settings: { readonly method: GainsMethod; readonly currency: string; readonly toleranceMs: number },
): CheckpointKey | null {
  if (!checkpointable(settings.method)) return null;
  return {
    accountId,
    method: settings.method,
    currency: settings.currency,
    toleranceMs: settings.toleranceMs,
    walkVersion: walkVersion(settings.method),
  };
}

export function walkVersion(method: GainsMethod): string {
  const inputs = {
    code: WALK_CODE_VERSION,
    rules: RULES_VERSION[method],
    booking: bookingArrays(),
    treatments: TREATMENTS,
    moneyPlaces: MONEY_PLACES,
  };
  return `${WALK_CODE_VERSION}-${createHash('sha256').update(JSON.stringify(inputs)).digest('hex').slice(0, 16)}`;
}
