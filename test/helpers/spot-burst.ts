import { gridCell, type WindowSpan } from '../../src/exchange/paging/window-planner.ts';

/**
 * The instant holding the most spot records, and the stretch from `before` ms earlier to `after`
 * ms later cut to that instant's grid cell of `span`: a test reading the stretch meets one window
 * on any date (scripts/any-date.sh), never two of which the burst's is not the one it expects.
 */
export function largestBurst(
  records: readonly { ts: string }[],
  span: WindowSpan,
  before: number,
  after: number,
): { burst: number; size: number; from: number; to: number } {
  const counts = new Map<string, number>();
  for (const r of records) counts.set(r.ts, (counts.get(r.ts) ?? 0) + 1);
  const [ts, size] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
  const burst = Number(ts);
  const cell = gridCell(span, burst);
  return { burst, size, from: Math.max(burst - before, cell.start), to: Math.min(burst + after, cell.end) };
}
