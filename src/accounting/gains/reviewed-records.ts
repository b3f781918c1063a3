import type { LedgerEntry } from '../../booking/ledger-entry.ts';
import { entryTreatment } from '../treatments/entry-treatment.ts';
import type { GainsEvent } from './gains-event.ts';

/** The lot flag a match carries (lot.ts `review`: the lot engine's and the UK matcher's both can). */
function lotReviewOf(match: unknown): string | undefined {
  if (typeof match !== 'object' || match === null || !('lotReview' in match)) return undefined;
  return typeof match.lotReview === 'string' ? match.lotReview : undefined;
}

/** Whether a match names the records it disposed of (the lot engine's and the UK matcher's both do). */
function disposalIdsOf(match: unknown): string | null {
  if (typeof match !== 'object' || match === null || !('disposalRecordIds' in match)) return null;
  return typeof match.disposalRecordIds === 'string' ? match.disposalRecordIds : null;
}

/**
 * The entry's review flag when it belongs on the gains rows of what it disposes of and acquires: a
 * record its history's treatment marks `review` that the walk values at market, for a reason the
 * record does not state (a margin `confiscated`, `compensate`). A reviewed P2P buy or sell is not:
 * its rows carry the walk's own unknown-cost / unknown-proceeds flags.
 */
function carriedReview(entry: LedgerEntry): string | undefined {
  if (entry.flag?.startsWith('review:') !== true) return undefined;
  const treatment = entryTreatment(entry);
  return treatment.review === true && treatment.kind === 'market' ? entry.flag : undefined;
}

/**
 * The margin records a person must look at (`confiscated`, `compensate`: the exchange took or gave
 * coins for a reason the record does not state; src/booking/wallet-entries.ts flags them
 * `review:<type>`), remembered as the walk meets them so that the disposal rows of such a record
 * carry the same flag, whenever the matcher hands them out (the UK matcher up to 31 days later).
 * Holds only the flagged records: a handful per account and year.
 */
export class ReviewedRecords {
  private readonly flags = new Map<string, string>();

  note(entry: LedgerEntry): void {
    const flag = carriedReview(entry);
    if (flag !== undefined) {
      this.flags.set(entry.recordIds, flag);
    }
  }

  /**
   * The flag the lots an entry acquires carry to every row that later consumes them: a margin
   * `compensate` (coins paid in, reason not stated) gives `review:compensate-lot`. Unlike the
   * disposal's own flag, this one must live in the lots (and so in a gains checkpoint): the rows
   * consuming them may come years later, from a walk resumed past the record.
   */
  static lotFlag(entry: LedgerEntry): string | undefined {
    const flag = carriedReview(entry);
    return flag === undefined ? undefined : `${flag}-lot`;
  }

  /**
   * The event, with `review` set when a record it disposed of is one to look at, else when a lot
   * it consumed came from one (the disposal's own record first: it is what the row is about).
   */
  mark<M>(event: GainsEvent<M>): GainsEvent<M> {
    if (event.kind !== 'disposal') return event;
    if (this.flags.size > 0) {
      for (const id of disposalIdsOf(event.match)?.split(/[ +]/) ?? []) {
        const review = this.flags.get(id);
        if (review !== undefined) return { ...event, review };
      }
    }
    const lotReview = lotReviewOf(event.match);
    return lotReview === undefined ? event : { ...event, review: lotReview };
  }
}
