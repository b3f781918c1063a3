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
 * the period. Meanwhile it is caught by what still pages to the empty page: the reconciliation's
 * re-count asking the exchange (a full check, RECONCILE_FULL_EVERY_DAYS, asks every window of its
 * days and names the missing records) and, for spot, the balance chain the very night (a lost
 * record breaks it). A re-count that meets a short page followed by more records records a gap,
 * which withdraws the evidence at once: the repair (`sync --refetch`) pages to the empty page again.
 */

/** Default of PAGE_FILL_EVIDENCE_DAYS: as long as RECONCILE_FULL_EVERY_DAYS' default, so a cap that starts
 * after the last full page is found by the scheduled full check no later than the evidence ages out. */
export const PAGE_FILL_EVIDENCE_DAYS = 30;

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
