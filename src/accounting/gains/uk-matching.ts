import type { Decimal } from 'decimal.js';

import { ValidationError } from '../../errors/index.ts';
import { minus, plus, SHARE_ROUNDING, shareAt, type ShareRounding, ZERO } from '../lots/lot-arithmetic.ts';
import { ukDate, ukDayOrdinal } from './uk-day.ts';

/**
 * Which of HMRC's identification rules matched a part of a day's disposal (CRYPTO22200 onwards):
 * `same-day` (TCGA92/S105(1)), `30-day` (S106A(5), bed and breakfast), `s104` (the pool, S104),
 * or `beyond-holdings`: more was disposed of than the account ever held (no cost, flagged).
 */
export type UkRule = 'same-day' | '30-day' | 's104' | 'beyond-holdings' | 'withdrawal-beyond-holdings';

/** One part of one day's disposal of one token, matched by one rule. */
export interface UkMatch {
  readonly coin: string;
  /** The London date of the disposal; all the token's disposals of that day are one disposal. */
  readonly disposedOn: string;
  /** The first disposal's instant on that day (for the period and the tax year). */
  readonly disposedAtMs: number;
  readonly rule: UkRule;
  /** The acquisition's London date (same-day: the disposal's; 30-day: the later day); else null. */
  readonly acquiredOn: string | null;
  readonly quantity: Decimal;
  /** This part's share of the day's proceeds; null when any disposal of the day is unpriced. */
  /**
   * Gross: the disposal's incidental costs (fees) are in `cost`, not taken off `proceeds`, as the
   * SA108 boxes ask (disposal proceeds; allowable costs, incidental costs of disposal included).
   */
  readonly proceeds: Decimal | null;
  /** Allowable cost of the part, its share of the day's incidental costs included; null when unpriced; 0 beyond the holdings (plus that share). */
  readonly cost: Decimal | null;
  /** This part's share of the day's incidental costs of disposal (in `cost`); absent when none. */
  readonly incidentalCost?: Decimal;
  /** The section 104 pool after this part (unchanged by same-day and 30-day parts). */
  readonly poolQuantity: Decimal;
  /** null while the pool holds tokens of unknown cost. */
  readonly poolCost: Decimal | null;
  readonly disposalRecordIds: string;
  readonly acquisitionRecordIds: string;
  /** The part's cost is unknown because coins of unknown cost (a deposit) are in what it matched. */
  readonly unknownCost?: boolean;
  /** Coins acquired by a record to review (`review:compensate-lot`) are in what it matched. */
  readonly lotReview?: string;
}

/** One token's acquisitions and disposals on one London date. */
interface UkDay {
  readonly date: string;
  readonly ordinal: number;
  acquired: Decimal;
  acquiredCost: Decimal | null;
  /** What same-day and 30-day matching have not taken yet (exact remainders: no drift). */
  acquiredLeft: Decimal;
  acquiredCostLeft: Decimal | null;
  /** Some of the day's acquisitions are deposits of unknown cost (their cost is null). */
  acquiredUnknown: boolean;
  /** Some of the day's acquisitions carry a review flag (lot.ts `review`): the first such flag. */
  acquiredReview: string | null;
  disposed: Decimal;
  /** Gross: what the walk passed net, plus the incidental costs. */
  proceeds: Decimal | null;
  /** The incidental costs of the day's disposals (fees paying for them). */
  incidental: Decimal;
  firstDisposalMs: number | null;
  /** Coins that left without a disposal (a withdrawal): they leave the pool at its average cost. */
  removed: Decimal;
  firstRemovalMs: number | null;
  readonly removalIds: string[];
  readonly acquisitionIds: string[];
  readonly disposalIds: string[];
  sameDaySettled: boolean;
  sameDay: { quantity: Decimal; cost: Decimal | null } | null;
}

interface Pool {
  quantity: Decimal;
  cost: Decimal;
  /** Tokens of unknown cost entered the pool: its cost is unknown until it is empty again. */
  unpriced: boolean;
  /** Of those, some came from a deposit whose cost nobody supplied (flagged `unknown-cost`). */
  unknownCost: boolean;
  /** Tokens acquired by a record to review entered the pool: until it is empty, every s104 part is flagged. */
  review: string | null;
}

interface Token {
  readonly coin: string;
  readonly pool: Pool;
  /** Open days, oldest first: at most the last 31 dates with activity. */
  readonly days: UkDay[];
}

/** How many days after a disposal its acquisitions can still match it (30 days, day 30 included). */
export const THIRTY_DAYS = 30;

/**
 * HMRC's share matching for cryptoassets, one token at a time, fed in time order with values in
 * pounds (or the report's valuation currency). A day's disposal is decided only once the 30 days
 * after it are known, so `advance` and `finish` hand back the matches of the days that are
 * decided, oldest day first (then by token). Memory: 31 days of activity per token plus the pools.
 *
 * Order of identification (CRYPTO22250-22257): the day's acquisitions first (same day, as one
 * acquisition); then acquisitions in the 30 days after, earliest first, each left over after its
 * own day's same-day match and after earlier disposals took their share; then the pool at its
 * average cost. What a day acquired and nothing matched joins the pool at the end of that day.
 * Shares are exact to 10 places (lot-arithmetic.ts), the remainder staying with what is left.
 */
export class UkMatcher {
  private readonly tokens = new Map<string, Token>();
  private today = Number.NEGATIVE_INFINITY;

  /**
   * `rounding`: how shares of a cost or of proceeds are rounded; the report keeps 10 places (half
   * even), HMRC's worked examples state whole pounds (half up: £937.50 is £938, CRYPTO22252).
   */
  constructor(
    readonly currency: string,
    private readonly rounding: ShareRounding = SHARE_ROUNDING,
  ) {}

  /** Time moved on to `atMs`: the matches of every day now more than 30 days back. */
  advance(atMs: number): UkMatch[] {
    const ordinal = ukDayOrdinal(atMs);
    if (ordinal < this.today) {
      throw new ValidationError('atMs', 'must not go back in time (UK matching reads forwards)', atMs);
    }
    this.today = ordinal;
    return this.settle((day) => day.ordinal + THIRTY_DAYS < ordinal);
  }

  /** The end of the history: every open day is decided with what is known. */
  finish(): UkMatch[] {
    return this.settle(() => true);
  }

  /**
   * `options.unknownCost`: coins from outside of unknown cost. A supplied acquisition date
   * (`options.acquiredAtMs`) is not used for matching: the coins join on the day they arrive (the
   * walk reads forwards), with their supplied cost (docs/reports.md, "Unknown cost").
   */
  acquire(
    coin: string,
    quantity: Decimal,
    cost: Decimal | null,
    atMs: number,
    recordIds: string,
    options: { readonly unknownCost?: true; readonly review?: string } = {},
  ): void {
    if (coin === this.currency || quantity.isZero()) return;
    const day = this.dayOf(coin, atMs);
    const known = options.unknownCost ? null : cost;
    if (options.unknownCost) day.acquiredUnknown = true;
    if (options.review !== undefined) day.acquiredReview ??= options.review;
    day.acquired = plus(day.acquired, quantity);
    day.acquiredCost = day.acquiredCost === null || known === null ? null : plus(day.acquiredCost, known);
    day.acquiredLeft = day.acquired;
    day.acquiredCostLeft = day.acquiredCost;
    day.acquisitionIds.push(recordIds);
  }

  /**
   * A disposal is held back until its day is decided: nothing is matched now. `proceeds` net of
   * `incidental` costs (fees paying for the disposal), which the matches show gross: proceeds +
   * incidental, the incidental costs in the allowable cost (TCGA92 s38(1)(c)).
   */
  dispose(
    coin: string,
    quantity: Decimal,
    proceeds: Decimal | null,
    atMs: number,
    recordIds: string,
    incidental: Decimal | null = null,
  ): UkMatch[] {
    if (coin === this.currency || quantity.isZero()) return [];
    const day = this.dayOf(coin, atMs);
    const costs = incidental ?? ZERO;
    day.disposed = plus(day.disposed, quantity);
    day.proceeds = day.proceeds === null || proceeds === null ? null : plus(day.proceeds, plus(proceeds, costs));
    day.incidental = plus(day.incidental, costs);
    day.firstDisposalMs ??= atMs;
    day.disposalIds.push(recordIds);
    return [];
  }

  /** Coins leave without a disposal (a withdrawal): they leave the pool at the end of today. */
  remove(coin: string, quantity: Decimal, atMs: number, recordIds = ''): void {
    if (coin === this.currency || quantity.isZero()) return;
    const day = this.dayOf(coin, atMs);
    day.removed = plus(day.removed, quantity);
    day.firstRemovalMs ??= atMs;
    if (recordIds !== '') day.removalIds.push(recordIds);
  }

  /** A withdrawal: `remove`; a part beyond the pool is flagged when its day is decided. */
  withdraw(coin: string, quantity: Decimal, atMs: number, recordIds: string): UkMatch[] {
    this.remove(coin, quantity, atMs, recordIds);
    return [];
  }

  /** The section 104 pool of a token as it stands (decided days only). */
  pool(coin: string): { quantity: Decimal; cost: Decimal | null } {
    const pool = this.tokens.get(coin)?.pool;
    return pool === undefined ? { quantity: ZERO, cost: ZERO } : { quantity: pool.quantity, cost: costOf(pool) };
  }

  private dayOf(coin: string, atMs: number): UkDay {
    let token = this.tokens.get(coin);
    if (token === undefined) {
      token = {
        coin,
        pool: { quantity: ZERO, cost: ZERO, unpriced: false, unknownCost: false, review: null },
        days: [],
      };
      this.tokens.set(coin, token);
    }
    const date = ukDate(atMs);
    const last = token.days.at(-1);
    if (last?.date === date) return last;
    const ordinal = ukDayOrdinal(atMs);
    if (last !== undefined && last.ordinal > ordinal) {
      throw new ValidationError('atMs', 'must not go back in time (UK matching reads forwards)', atMs);
    }
    const day: UkDay = {
      date,
      ordinal,
      acquired: ZERO,
      acquiredCost: ZERO,
      acquiredLeft: ZERO,
      acquiredCostLeft: ZERO,
      acquiredUnknown: false,
      acquiredReview: null,
      disposed: ZERO,
      proceeds: ZERO,
      incidental: ZERO,
      firstDisposalMs: null,
      removed: ZERO,
      firstRemovalMs: null,
      removalIds: [],
      acquisitionIds: [],
      disposalIds: [],
      sameDaySettled: false,
      sameDay: null,
    };
    token.days.push(day);
    return day;
  }

  /** Decides the days `due` picks, oldest first across tokens (then by token), and drops them. */
  private settle(due: (day: UkDay) => boolean): UkMatch[] {
    const ready: { token: Token; day: UkDay }[] = [];
    for (const token of this.tokens.values()) {
      for (const day of token.days) {
        if (!due(day)) break;
        ready.push({ token, day });
      }
    }
    ready.sort((a, b) => a.day.ordinal - b.day.ordinal || (a.token.coin < b.token.coin ? -1 : 1));
    const matches: UkMatch[] = [];
    for (const { token, day } of ready) {
      matches.push(...decideDay(token, day, this.rounding));
      token.days.shift();
    }
    return matches;
  }
}

/** A day's same-day match, once, before any earlier disposal looks at the day's acquisitions. */
function settleSameDay(day: UkDay, rounding: ShareRounding): void {
  if (day.sameDaySettled) return;
  day.sameDaySettled = true;
  const quantity = day.disposed.lt(day.acquired) ? day.disposed : day.acquired;
  if (quantity.isZero()) return;
  day.sameDay = { quantity, cost: takeAcquired(day, quantity, rounding) };
}

/** Takes `quantity` of what the day acquired and has left, with its exact share of the cost. */
function takeAcquired(day: UkDay, quantity: Decimal, rounding: ShareRounding): Decimal | null {
  const left = day.acquiredCostLeft;
  const cost = left === null ? null : shareAt(left, quantity, day.acquiredLeft, rounding);
  if (day.acquiredCostLeft !== null && cost !== null) day.acquiredCostLeft = minus(day.acquiredCostLeft, cost);
  day.acquiredLeft = minus(day.acquiredLeft, quantity);
  return cost;
}

function costOf(pool: Pool): Decimal | null {
  return pool.unpriced ? null : pool.cost;
}

function decideDay(token: Token, day: UkDay, rounding: ShareRounding): UkMatch[] {
  const { pool } = token;
  const share = (total: Decimal, part: Decimal, whole: Decimal) => shareAt(total, part, whole, rounding);
  settleSameDay(day, rounding);
  const matches: UkMatch[] = [];
  if (day.disposed.gt(ZERO)) {
    let left = day.disposed;
    let proceedsLeft = day.proceeds;
    // The day's incidental costs, shared as its proceeds are (only where the day is priced).
    let costsLeft = day.proceeds !== null && day.incidental.gt(ZERO) ? day.incidental : null;
    const part = (
      rule: UkRule,
      acquiredOn: string | null,
      quantity: Decimal,
      cost: Decimal | null,
      ids: string,
      unknownCost = false,
      review: string | null = null,
    ) => {
      const proceeds = proceedsLeft === null ? null : share(proceedsLeft, quantity, left);
      if (proceedsLeft !== null && proceeds !== null) proceedsLeft = minus(proceedsLeft, proceeds);
      const incidental = costsLeft === null ? null : share(costsLeft, quantity, left);
      if (costsLeft !== null && incidental !== null) costsLeft = minus(costsLeft, incidental);
      left = minus(left, quantity);
      matches.push({
        coin: token.coin,
        disposedOn: day.date,
        disposedAtMs: day.firstDisposalMs!,
        rule,
        acquiredOn,
        quantity,
        proceeds,
        cost: cost === null || incidental === null ? cost : plus(cost, incidental),
        ...(incidental !== null ? { incidentalCost: incidental } : {}),
        poolQuantity: pool.quantity,
        poolCost: costOf(pool),
        disposalRecordIds: day.disposalIds.join(' '),
        acquisitionRecordIds: ids,
        ...(unknownCost ? { unknownCost: true } : {}),
        ...(review !== null ? { lotReview: review } : {}),
      });
    };
    if (day.sameDay !== null) {
      const ids = day.acquisitionIds.join(' ');
      part('same-day', day.date, day.sameDay.quantity, day.sameDay.cost, ids, day.acquiredUnknown, day.acquiredReview);
    }
    for (const later of token.days) {
      if (left.isZero()) break;
      if (later.ordinal <= day.ordinal) continue;
      if (later.ordinal > day.ordinal + THIRTY_DAYS) break;
      settleSameDay(later, rounding);
      if (later.acquiredLeft.isZero()) continue;
      const quantity = left.lt(later.acquiredLeft) ? left : later.acquiredLeft;
      const cost = takeAcquired(later, quantity, rounding);
      const ids = later.acquisitionIds.join(' ');
      part('30-day', later.date, quantity, cost, ids, later.acquiredUnknown, later.acquiredReview);
    }
    if (left.gt(ZERO) && pool.quantity.gt(ZERO)) {
      const quantity = left.lt(pool.quantity) ? left : pool.quantity;
      const cost = share(pool.cost, quantity, pool.quantity);
      const { unpriced, unknownCost, review } = pool;
      pool.cost = minus(pool.cost, cost);
      pool.quantity = minus(pool.quantity, quantity);
      if (pool.quantity.isZero()) emptyPool(pool);
      part('s104', null, quantity, unpriced ? null : cost, '', unknownCost, review);
    }
    if (left.gt(ZERO)) part('beyond-holdings', null, left, ZERO, '');
  }
  // What the day acquired and no disposal took joins the pool; then what left without a disposal.
  if (day.acquiredLeft.gt(ZERO)) {
    pool.quantity = plus(pool.quantity, day.acquiredLeft);
    if (day.acquiredCostLeft === null) pool.unpriced = true;
    else pool.cost = plus(pool.cost, day.acquiredCostLeft);
    if (day.acquiredUnknown) pool.unknownCost = true;
    if (day.acquiredReview !== null) pool.review ??= day.acquiredReview;
  }
  if (day.removed.gt(ZERO)) {
    const quantity = day.removed.lt(pool.quantity) ? day.removed : pool.quantity;
    if (quantity.gt(ZERO)) {
      pool.cost = minus(pool.cost, share(pool.cost, quantity, pool.quantity));
      pool.quantity = minus(pool.quantity, quantity);
      if (pool.quantity.isZero()) emptyPool(pool);
    }
    // More left than the pool held: flagged as a disposal beyond the holdings is, nothing realized.
    const beyond = minus(day.removed, quantity);
    if (beyond.gt(ZERO)) {
      matches.push({
        coin: token.coin,
        disposedOn: day.date,
        disposedAtMs: day.firstRemovalMs ?? day.firstDisposalMs ?? 0,
        rule: 'withdrawal-beyond-holdings',
        acquiredOn: null,
        quantity: beyond,
        proceeds: ZERO,
        cost: ZERO,
        poolQuantity: pool.quantity,
        poolCost: costOf(pool),
        disposalRecordIds: day.removalIds.join(' '),
        acquisitionRecordIds: '',
      });
    }
  }
  return matches;
}

function emptyPool(pool: Pool): void {
  pool.cost = ZERO;
  pool.unpriced = false;
  pool.unknownCost = false;
  pool.review = null;
}
