/**
 * When a page shorter than the limit asked for may end a window.
 *
 * The contract (spec decisions §4) says an empty list ends paging and nothing about short pages;
 * docs/exchange-api.md §5.1 asked the empty page after every window for that reason. That page
 * is most of a night's requests (a nightly window is one page of records and the empty one). A
 * short page is the end only if the exchange fills every page it can to the limit asked for: an
 * exchange that silently capped its pages below that limit (say 250 of 500) would make every page
 * short, and a window ended on its first page would lose the rest of it, while its read's marks
 * (read-marks.ts) vouch for what it stored.
 *
 * So a short page ends a window only on evidence, per endpoint and limit, installation-wide:
 * a page of exactly the limit answered within the evidence period (PAGE_FILL_EVIDENCE_DAYS),
 * and no page found short with more after it ("a gap") within that period. A full page shows the
 * endpoint served the limit lately; an exchange that caps later serves no more full pages, so the
 * evidence ages out: a cap that starts after the last full page can end windows early for at most
 * the period. A window that had a full page cannot have been cut by a cap that was on (a capping
 * exchange serves no full page): only a window ended on its first, short page is at risk. Such a
 * loss is met first by the canary (PAGE_FILL_CANARY_EVERY, below: a random tenth of such windows
 * is read to its empty page anyway, and a capped one finds the gap), then by what still pages to
 * the empty page, the reconciliation's re-counts (they never end a window on a short page):
 *   - a nightly window starts a lookback before the covered end, so its oldest records were stored
 *     by an earlier read; paging goes newest to oldest, so a window ended early loses its oldest
 *     records, those among them, and the short read did not meet them: its marks do not vouch for
 *     the window (read-marks.ts) and tonight's re-count asks the exchange, naming the records;
 *   - a window of new records only (a first sync, a quiet lookback) is vouched for by its marks.
 *     For spot the balance chain breaks the same night. The scheduled full check
 *     (RECONCILE_FULL_EVERY_DAYS) asks the exchange for every window of its last
 *     RECENT_RECOUNT_DAYS and rechains spot's whole history; older windows of the other streams
 *     are asked only by `reconcile --recount all`, which the gap's note tells the operator to run.
 * A re-count (or a sync without evidence) that meets a short page followed by more records
 * records a gap, which withdraws the evidence at once: the repair (`backfill --refetch`) pages to
 * the empty page again.
 */

/**
 * Default of PAGE_FILL_EVIDENCE_DAYS. Long enough that an installation whose full pages come only
 * from backfills and busy days keeps its evidence between them; no longer than the full check's
 * cadence (RECONCILE_FULL_EVERY_DAYS, 30), so a cap no re-count has met stops ending windows
 * early by the time the next scheduled full check has had its chance to meet it.
 */
export const PAGE_FILL_EVIDENCE_DAYS = 30;

/**
 * Default of PAGE_FILL_CANARY_EVERY: about one window in this many that fresh evidence would let end
 * on a short page is read the old way instead, to its empty page, chosen at random. It is the
 * canary for a cap that begins while the evidence is fresh: a capped window read the old way meets
 * the records after its short page (a gap), which withdraws the evidence the same night, before any
 * re-count. With one in 10, an installation whose nights hold a few dozen such windows meets a new
 * cap on its first night, a single account (about 7 a night) within 2 nights on average; it costs
 * a tenth of the requests the rule saves.
 */
export const PAGE_FILL_CANARY_EVERY = 10;

/**
 * Whether this window may end on a short page: fresh evidence (`fills`), and not drawn as a canary
 * (one in `every`; 0: never a canary). `random` in [0, 1).
 */
export function endsShortUnlessCanary(fills: boolean, every: number, random: () => number = Math.random): boolean {
  if (!fills) return false;
  return !(every > 0 && random() * every < 1);
}

/** What the installation has seen of one endpoint's pages at one limit (Unix ms). */
export interface FillEvidence {
  /** The last page of exactly the limit answered; null: none yet. */
  lastFullPageAt: number | null;
  /** The last page shorter than the limit that was followed by more records; null: none. */
  lastGapAt: number | null;
}

/**
 * Whether the evidence says the endpoint fills its pages at `now`: a full page within `periodMs`,
 * later than any gap, and no gap within `periodMs`. A period of 0 turns the rule off.
 */
export function fillsPages(evidence: FillEvidence | undefined, now: number, periodMs: number): boolean {
  if (evidence === undefined || evidence.lastFullPageAt === null || !(periodMs > 0)) return false;
  const { lastFullPageAt, lastGapAt } = evidence;
  if (now - lastFullPageAt > periodMs) return false;
  return lastGapAt === null || (lastGapAt < lastFullPageAt && now - lastGapAt > periodMs);
}

/** What a window's pager is told about the pages of its endpoint at the limit it asks for. */
export interface PageFill {
  /** The `limit` each page is asked for. */
  readonly limit: number;
  /** Fresh evidence (fillsPages): a page of 0 < n < limit items ends the window. */
  readonly endsShort: boolean;
}
