/**
 * Where an answer's shape differs from the contract (docs/exchange-api.md) without harming the
 * copy: a documented field `absent` (or null), an `unlisted` field present, a documented field of
 * another `type` than documented (read as null, or converted where that is exact: a numeric
 * string `requestTime`). `refused` is the other outcome: an answer refused because a core field
 * (identity, money, time, paging) is missing or garbled. Both are counted per (endpoint, field,
 * kind) so an operator learns that the exchange changed before it matters.
 */
export type DriftKind = 'absent' | 'unlisted' | 'type';
export type ShapeOutcome = DriftKind | 'refused';

export const DRIFT_KINDS: readonly DriftKind[] = ['absent', 'unlisted', 'type'];

export interface ShapeDrift {
  /** The field, a dotted path from the envelope (`requestTime`) or from the record (`posMode`, `failureList.errorCode`). */
  field: string;
  kind: ShapeOutcome;
  /** How many records (or answers, for envelope fields) showed it. */
  count: number;
}

/**
 * Told of the drift of each answer (one call per answer that showed any, and per refusal).
 * It must not throw; the call goes on whatever it does.
 */
export type ShapeDriftListener = (endpoint: string, drift: ShapeDrift[]) => Promise<void> | void;

let collecting: Map<string, ShapeDrift> | undefined;

/**
 * Notes one drift while an answer is being read. Schemas call it from their transforms: zod
 * parses synchronously, so the answer being read is the one `collectDrift` is running for.
 * Outside of `collectDrift` (a schema used on its own) it does nothing.
 */
export function noteDrift(field: string, kind: DriftKind): void {
  if (collecting === undefined) return;
  const key = `${kind} ${field}`;
  const seen = collecting.get(key);
  if (seen) seen.count += 1;
  else collecting.set(key, { field, kind, count: 1 });
}

/** Runs `read` (synchronous) and returns what it returned with the drift it noted. */
export function collectDrift<T>(read: () => T): { value: T; drift: ShapeDrift[] } {
  const outer = collecting;
  const mine = new Map<string, ShapeDrift>();
  collecting = mine;
  try {
    const value = read();
    return { value, drift: [...mine.values()] };
  } finally {
    collecting = outer;
  }
}

/** A path at fault (`data.list[3].positionId`) as a drift field: no list indices, no `data.` prefix. */
export function fieldOfPath(path: string): string {
  return (
    path
      .replace(/\[\d+\]/g, '')
      .replace(/^data\.?/, '')
      .replace(/^list\./, '') || 'data'
  );
}
