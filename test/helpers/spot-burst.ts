import { gridCell, type WindowSpan } from '../../src/exchange/paging/window-planner.ts';

/**
 * The instant holding the most spot records whose surroundings, `before` ms earlier to `after` ms
 * later, lie in one grid cell of `span`: a test reading that stretch then meets one window on any
 * date (scripts/any-date.sh), not two of which one ends the stretch early.
 */
export function largestBurstInOneCell(
  records: readonly { ts: string }[],
  span: WindowSpan,
  before: number,
  after: number,
): { burst: number; size: number } {
  const counts = new Map<string, number>();
  for (const r of records) counts.set(r.ts, (counts.get(r.ts) ?? 0) + 1);
  for (const [ts, size] of [...counts].sort((a, b) => b[1] - a[1])) {
    const burst = Number(ts);
    if (gridCell(span, burst - before).start === gridCell(span, burst + after - 1).start) return { burst, size };
  }
  throw new Error('no burst lies with its surroundings in one grid cell');
}
