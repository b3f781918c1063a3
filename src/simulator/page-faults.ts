import type { PageFault } from './faults.ts';

/** The id field of each history endpoint's records (docs/exchange-api.md §7.8-7.10). */
const ID_FIELDS = ['positionId', 'txId', 'id'] as const;

/** The query parameters that carry a history page's cursor (idLessThan, or cursor for transfers). */
export const CURSOR_PARAMS = ['idLessThan', 'cursor'] as const;

/**
 * Rewrites a successful history answer into the lie the fault names. The body is
 * parsed and written again: a fault is a test's tool, never on a hot path.
 * Anything that is not a history page (no list in `data`) is sent unchanged,
 * except under `nullData`, which nulls any `data`.
 */
export function applyPageFault(fault: PageFault, body: string | Buffer): string | Buffer {
  if (fault === 'cycleCursor') return body; // acted on the request, not the answer
  const envelope = JSON.parse(body.toString()) as { data: unknown };
  const data = envelope.data;
  if (fault === 'nullData') return JSON.stringify({ ...envelope, data: null });
  const holder = Array.isArray(data) ? undefined : (data as { list?: unknown } | null);
  const list = Array.isArray(data) ? data : Array.isArray(holder?.list) ? holder.list : undefined;
  if (list === undefined) return body;
  if (fault === 'nullList') {
    return JSON.stringify({ ...envelope, data: holder ? { ...holder, list: null } : null });
  }
  // duplicateId: two different records under one id in one page.
  if (list.length < 2) return body;
  const [first, second] = list as Record<string, unknown>[];
  const field = ID_FIELDS.find((name) => name in first!);
  if (field === undefined) return body;
  list[1] = { ...second, [field]: first![field] };
  return JSON.stringify(envelope);
}
