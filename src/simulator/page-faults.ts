import type { PageFault } from './faults.ts';

/** The id field of each history endpoint's records (docs/exchange-api.md §7.8-7.10). */
const ID_FIELDS = ['positionId', 'txId', 'id'] as const;

/**
 * The fields that name one record (its natural key): a transfer is one deposit or one withdrawal
 * of a txId, so its type goes with the id.
 */
const KEY_FIELDS: Record<(typeof ID_FIELDS)[number], readonly string[]> = {
  positionId: ['positionId'],
  txId: ['txId', 'type'],
  id: ['id'],
};

/**
 * What `repeatId` needs to know of earlier answers: the last record of each page answered on a
 * path, by its id (which is the cursor the next page of that window is asked with).
 */
export interface PageMemory {
  recall(path: string, id: string): Record<string, unknown> | undefined;
  remember(path: string, id: string, record: Record<string, unknown>): void;
}

export interface PageRequest {
  path: string;
  /** The request's cursor (idLessThan or cursor), if it carried one. */
  cursor: string | undefined;
  memory: PageMemory;
}

/** The query parameters that carry a history page's cursor (idLessThan, or cursor for transfers). */
export const CURSOR_PARAMS = ['idLessThan', 'cursor'] as const;

/**
 * Rewrites a successful history answer into the lie the fault names. The body is
 * parsed and written again: a fault is a test's tool, never on a hot path.
 * Anything that is not a history page (no list in `data`) is sent unchanged,
 * except under `nullData`, which nulls any `data`.
 */
export function applyPageFault(fault: PageFault, body: string | Buffer, request?: PageRequest): string | Buffer {
  if (fault === 'cycleCursor' || fault === 'capPageSize') return body; // acted on the request, not the answer
  const envelope = JSON.parse(body.toString()) as { data: unknown };
  const data = envelope.data;
  if (fault === 'nullData') return JSON.stringify({ ...envelope, data: null });
  const holder = Array.isArray(data) ? undefined : (data as { list?: unknown } | null);
  const list = Array.isArray(data) ? data : Array.isArray(holder?.list) ? holder.list : undefined;
  if (list === undefined) return body;
  if (fault === 'nullList') {
    return JSON.stringify({ ...envelope, data: holder ? { ...holder, list: null } : null });
  }
  const records = list as Record<string, unknown>[];
  if (fault === 'endEarly') {
    if (request?.cursor === undefined || list.length === 0) return body;
    // The honest end's shape: nothing listed, no cursor for a next page.
    list.splice(0, list.length);
    if (holder && 'endId' in holder) (holder as { endId?: unknown }).endId = null;
    if (holder && 'cursor' in holder) (holder as { cursor?: unknown }).cursor = null;
    return JSON.stringify(envelope);
  }
  if (fault === 'emptyMidWindow') {
    if (request?.cursor === undefined || list.length === 0) return body;
    // The page's own paging still says more follows (its endId), the list says nothing does.
    list.splice(0, list.length);
    return JSON.stringify(envelope);
  }
  if (fault === 'garbledMeaning') {
    list.splice(0, list.length, ...records.map(garbled));
    return JSON.stringify(envelope);
  }
  if (fault === 'restate') {
    // Every record as the exchange would send it after correcting it: same key, one more field.
    list.splice(0, list.length, ...records.map((record) => ({ ...record, restated: 'true' })));
    return JSON.stringify(envelope);
  }
  if (fault === 'repeatId') return (request && repeatEarlierId(records, request, envelope)) ?? body;
  // duplicateId: two different records under one id in one page.
  if (list.length < 2) return body;
  const [first, second] = list as Record<string, unknown>[];
  const field = ID_FIELDS.find((name) => name in first!);
  if (field === undefined) return body;
  list[1] = { ...second, [field]: first![field] };
  return JSON.stringify(envelope);
}

/** garbledMeaning: one record with the fields that pair or sign its money sent garbled. */
function garbled(record: Record<string, unknown>): Record<string, unknown> {
  const out = { ...record };
  if (typeof out.bizOrderId === 'string') out.bizOrderId = Number(out.bizOrderId || '0');
  if ('futureTaxType' in out && typeof out.symbol === 'string') out.symbol = 1;
  if ('positionId' in out) delete out.holdSide;
  return out;
}

/**
 * repeatId: a page asked for with a cursor gets, as its first record, a record that carries the
 * key of the previous page's last record (the one the cursor names) but otherwise its own content:
 * one id, two different records, on two pages of one read. Only pages of two records or more are
 * changed, so the page's own cursor (its last record) stays as it was.
 */
function repeatEarlierId(
  records: Record<string, unknown>[],
  request: PageRequest,
  envelope: unknown,
): string | undefined {
  const last = records.at(-1);
  const field = last && ID_FIELDS.find((name) => name in last);
  if (last === undefined || field === undefined) return undefined;
  const earlier = request.cursor === undefined ? undefined : request.memory.recall(request.path, request.cursor);
  request.memory.remember(request.path, String(last[field]), { ...last });
  if (earlier === undefined || records.length < 2) return undefined;
  const key = Object.fromEntries(KEY_FIELDS[field].map((name) => [name, earlier[name]]));
  records[0] = { ...records[0], ...key };
  return JSON.stringify(envelope);
}

/** omitFields: every record of a history page without the named fields; anything else unchanged. */
export function omitRecordFields(fields: readonly string[], body: string | Buffer): string | Buffer {
  const envelope = JSON.parse(body.toString()) as { data: unknown };
  const data = envelope.data as { list?: unknown } | unknown[] | null;
  const list = Array.isArray(data) ? data : Array.isArray(data?.list) ? data.list : undefined;
  if (list === undefined) return body;
  for (const record of list as Record<string, unknown>[]) for (const field of fields) delete record[field];
  return JSON.stringify(envelope);
}
