import { Rng } from './prng.ts';

export interface FaultConfig {
  /** Probability of answering HTTP 500 / code 40015. */
  http500?: number;
  /** Probability of destroying the connection without an answer. */
  reset?: number;
  /** Added latency before answering, ms. */
  latencyMs?: number;
  /** Probability of cutting the JSON body in half. */
  truncate?: number;
  /** Probability of answering 429 although the budget is not spent. */
  burst429?: number;
  /** Seed of the fault draws: the same seed and request sequence give the same faults. */
  seed?: number;
  /** Only these paths are faulted; all API paths when absent. */
  paths?: string[];
  /** One-shot: the next `count` POSTs to `path` change state, then lose the connection unanswered. */
  applyThenReset?: { path: string; count: number };
  /**
   * Lies a history page can tell on a `00000` answer (see page-faults.ts), applied to every
   * successful answer of the faulted paths: `nullData` sends `data: null`, `nullList` sends
   * `data.list: null` (spot-record, whose data is a bare list, gets `data: null`), `duplicateId`
   * gives a page's second record the first one's id, `cycleCursor` answers every second request
   * that carries a cursor as if it carried none (so the cursors go A, B, A, B, ...), `repeatId`
   * gives the first record of a page asked with a cursor the key of the previous page's last
   * record (one id, two different records, on two pages of one read), `restate` adds a field to
   * every record (the exchange corrected its records since they were last read), `garbledMeaning`
   * sends the fields that pair or sign money garbled (a spot record's `bizOrderId` and a futures
   * record's `symbol` as numbers, a position without `holdSide`), `emptyMidWindow` answers every
   * request that carries a cursor with an empty list (a history-position or transfer page keeps
   * its `endId`, as if more followed), `capPageSize` silently answers at most half the `limit`
   * asked for (at least 1), paging on correctly from there: every page is short, none is the end.
   * `endEarly` answers every request that carries a cursor as the window's honest end would be
   * answered: an empty list and no cursor for a next page (`endId` null), whatever follows.
   */
  page?: PageFault;
  /**
   * Fields left out of every record of a history page of the faulted paths (the exchange dropping
   * a field from its answers, e.g. `bizOrderId`); with `page`, applied after it.
   */
  omitFields?: string[];
}

export type PageFault =
  | 'nullData'
  | 'nullList'
  | 'duplicateId'
  | 'cycleCursor'
  | 'repeatId'
  | 'restate'
  | 'garbledMeaning'
  | 'emptyMidWindow'
  | 'endEarly'
  | 'capPageSize';
const PAGE_FAULTS: readonly PageFault[] = [
  'nullData',
  'nullList',
  'duplicateId',
  'cycleCursor',
  'repeatId',
  'restate',
  'garbledMeaning',
  'emptyMidWindow',
  'endEarly',
  'capPageSize',
];

export interface FaultDecision {
  latencyMs: number;
  reset: boolean;
  http500: boolean;
  burst429: boolean;
  truncate: boolean;
}

const MAX_REMEMBERED = 10_000;

const NONE: FaultDecision = { latencyMs: 0, reset: false, http500: false, burst429: false, truncate: false };

/** Fault injection of the admin API; every draw comes from one seeded stream, in request order. */
export class Faults {
  #config: FaultConfig = {};
  #rng = new Rng(0, 'faults');
  #applyThenReset: { path: string; remaining: number } | undefined;
  #cursorRequests = 0;
  /** Under `repeatId`: the last record of each page answered, by path and id (bounded: a test's tool). */
  #lastRecords = new Map<string, Record<string, unknown>>();

  get config(): FaultConfig & { applyThenResetRemaining: number } {
    return { ...this.#config, applyThenResetRemaining: this.#applyThenReset?.remaining ?? 0 };
  }

  set(config: FaultConfig): void {
    validate(config);
    this.#config = { ...config };
    this.#rng = new Rng(config.seed ?? 0, 'faults');
    this.#applyThenReset = config.applyThenReset
      ? { path: config.applyThenReset.path, remaining: config.applyThenReset.count }
      : undefined;
    this.#cursorRequests = 0;
    this.#lastRecords.clear();
  }

  /** Remembers the last records of pages answered under `repeatId` (see page-faults.ts). */
  readonly pageMemory = {
    recall: (path: string, id: string) => this.#lastRecords.get(`${path} ${id}`),
    remember: (path: string, id: string, record: Record<string, unknown>) => {
      if (this.#lastRecords.size >= MAX_REMEMBERED) this.#lastRecords.clear();
      this.#lastRecords.set(`${path} ${id}`, record);
    },
  };

  clear(): void {
    this.set({});
  }

  decide(path: string): FaultDecision {
    const c = this.#config;
    if (c.paths && !c.paths.includes(path)) return NONE;
    if (!c.http500 && !c.reset && !c.latencyMs && !c.truncate && !c.burst429) return NONE;
    // Always four draws, so one kind of fault never shifts the draws of another.
    const draws = [this.#rng.next(), this.#rng.next(), this.#rng.next(), this.#rng.next()];
    return {
      latencyMs: c.latencyMs ?? 0,
      reset: draws[0]! < (c.reset ?? 0),
      http500: draws[1]! < (c.http500 ?? 0),
      burst429: draws[2]! < (c.burst429 ?? 0),
      truncate: draws[3]! < (c.truncate ?? 0),
    };
  }

  /** The fields to leave out of this path's records, if any. */
  omittedFields(path: string): readonly string[] {
    const c = this.#config;
    if (c.omitFields === undefined || (c.paths && !c.paths.includes(path))) return [];
    return c.omitFields;
  }

  /** The lie to tell on this path's successful answers, if any. */
  pageFault(path: string): PageFault | undefined {
    const c = this.#config;
    if (c.page === undefined || (c.paths && !c.paths.includes(path))) return undefined;
    return c.page;
  }

  /** Under `cycleCursor`: whether this request's cursor is to be ignored (every second one that has a cursor). */
  dropsCursor(path: string, hasCursor: boolean): boolean {
    if (!hasCursor || this.pageFault(path) !== 'cycleCursor') return false;
    this.#cursorRequests += 1;
    return this.#cursorRequests % 2 === 0;
  }

  /** Under `capPageSize`: the `limit` the request is answered with (half the one asked, at least 1). */
  cappedLimit(path: string, limit: string | null): string | undefined {
    if (limit === null || this.pageFault(path) !== 'capPageSize' || !/^\d+$/.test(limit)) return undefined;
    return String(Math.max(1, Math.floor(Number(limit) / 2)));
  }

  /** Whether this POST is to be applied and then left unanswered; consumes one of the shots. */
  takeApplyThenReset(method: string, path: string): boolean {
    const armed = this.#applyThenReset;
    if (!armed || method !== 'POST' || armed.path !== path || armed.remaining <= 0) return false;
    armed.remaining--;
    return true;
  }
}

function validate(config: FaultConfig): void {
  for (const name of ['http500', 'reset', 'truncate', 'burst429'] as const) {
    const p = config[name];
    if (p !== undefined && !(typeof p === 'number' && p >= 0 && p <= 1)) {
      throw new RangeError(`faults.${name}: must be a probability from 0 to 1`);
    }
  }
  if (config.latencyMs !== undefined && !(Number.isFinite(config.latencyMs) && config.latencyMs >= 0)) {
    throw new RangeError('faults.latencyMs: must be a non-negative number');
  }
  if (config.seed !== undefined && !Number.isSafeInteger(config.seed)) {
    throw new RangeError('faults.seed: must be an integer');
  }
  if (
    config.paths !== undefined &&
    !(Array.isArray(config.paths) && config.paths.every((p) => typeof p === 'string'))
  ) {
    throw new RangeError('faults.paths: must be a list of paths');
  }
  if (config.page !== undefined && !PAGE_FAULTS.includes(config.page)) {
    throw new RangeError(`faults.page: must be one of ${PAGE_FAULTS.join(', ')}`);
  }
  if (
    config.omitFields !== undefined &&
    !(Array.isArray(config.omitFields) && config.omitFields.every((f) => typeof f === 'string' && f.length > 0))
  ) {
    throw new RangeError('faults.omitFields: must be a list of field names');
  }
  const once = config.applyThenReset;
  if (once !== undefined && !(typeof once.path === 'string' && Number.isSafeInteger(once.count) && once.count >= 1)) {
    throw new RangeError('faults.applyThenReset: must be { path: string, count: integer >= 1 }');
  }
}
