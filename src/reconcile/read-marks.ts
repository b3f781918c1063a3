/**
 * A window's re-count from its own read's marks, without asking the exchange.
 *
 * The sync's read of a window pages it from its first page to its last (an empty page, or a page
 * shorter than the limit on page-fill evidence, src/streams/kit/page-fill.ts); every page
 * stored adds its records to `sync_window.rows` in the same statement that stores them, and stamps
 * each record it stores or meets with the read's `read_id` (page-store-sql.ts). So a read that
 * finished recently is a re-count already made: it is what the exchange served for the window,
 * page for page, when the read ran. Its marks agree with the stored rows when
 *   - every stored record of the window was met by that read (or a later one): none is stored that
 *     the exchange no longer served (a record the exchange removed keeps an older read id), and
 *   - the records stored under that read are as many as its pages carried: none the read was served
 *     is missing from the store.
 * Anything else (a stored record the read did not meet, a shortfall, a later read's stamp that
 * makes the count ambiguous, a stream whose rows carry no read id) is not judged here: the window
 * is asked of the exchange, as before, which names the records on either side.
 *
 * What this gives up against asking again: a record the exchange adds to the window after the read
 * (a late publication) is not seen by tonight's check. The next sync's lookback reads the window's
 * time again and stores it (SYNC_LOOKBACK_HOURS: 24 for spot, 48 for transfers), and the scheduled
 * full check (RECONCILE_FULL_EVERY_DAYS) asks the exchange for every window of its days.
 *
 * A read that ended on an empty page after a full page (or after pages an earlier run of the read
 * took, whose size is not known) never vouches for itself (issue 43): its end rests on that empty
 * page, and the probe that let it stand (page-window.ts, EndCheck) is one more answer of the same
 * exchange. An exchange that answered the first cursor request of each window empty ended them all
 * "done" with every later page missing, and a re-count from the read's own marks agreed with it.
 * Such a window is asked of the exchange, paged to its end again.
 *
 * A read ended early on a short page by an exchange that started capping its pages (page-fill.ts)
 * is vouched for too when every record of its window is new: its marks only say what it was
 * served. The spot balance chain breaks the same night; a window holding records stored by an
 * earlier read (a night's lookback) is asked again, since the short read did not meet them; and the
 * full check names the rest (test/reconcile/capped-pages-full-check.test.ts).
 */

/** Default of RECONCILE_FRESH_READ_HOURS: a read younger than this is its own re-count. */
export const FRESH_READ_HOURS = 6;

/** What a done window's read left behind. */
export interface ReadMarks {
  /** sync_window.read_id: the read that finished the window. */
  readId: string;
  /** sync_window.rows: the records that read's pages carried. */
  rows: number;
  /** sync_window.ended_after_full_page: the read ended on an empty page after a full one. */
  endedAfterFullPage: boolean;
}

/** The stored records of the window, each with the read that last stored or met it (undefined: not known). */
export interface StoredReads {
  keys: ReadonlySet<string>;
  readOf: ReadonlyMap<string, string | undefined>;
}

export type MarksVerdict =
  | { agrees: true }
  | {
      agrees: false;
      why: 'ended after a full page' | 'no read ids' | 'not met by the read' | 'met by a later read' | 'count differs';
    };

/** Read ids are bigints as decimal text: (length, text) is their numeric order. */
function compareReadIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** Whether the read's marks vouch for the stored window (pure: the caller asks the exchange otherwise). */
export function judgeByMarks(marks: ReadMarks, stored: StoredReads): MarksVerdict {
  if (marks.endedAfterFullPage) return { agrees: false, why: 'ended after a full page' };
  let thisRead = 0;
  for (const key of stored.keys) {
    const read = stored.readOf.get(key);
    if (read === undefined) return { agrees: false, why: 'no read ids' };
    const order = compareReadIds(read, marks.readId);
    if (order < 0) return { agrees: false, why: 'not met by the read' };
    if (order > 0) return { agrees: false, why: 'met by a later read' };
    thisRead += 1;
  }
  return thisRead === marks.rows ? { agrees: true } : { agrees: false, why: 'count differs' };
}
