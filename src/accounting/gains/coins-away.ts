import { Decimal } from 'decimal.js';
import type pg from 'pg';

import { byteOrder } from '../../booking/sql-fragments.ts';
import { ValidationError } from '../../errors/index.ts';
import { minus, plain, ZERO } from '../lots/lot-arithmetic.ts';
import { OWN_MOVE_TYPES } from './own-moves-away.ts';

/**
 * How many days coins may stay away (a strategy, Earn, a lock) before they are flagged: config
 * COINS_AWAY_DAYS. 90: a quarter, longer than the usual fixed terms of Earn products and locks
 * (7 to 90 days), so a flag is rarely a term still running, and short enough that a loss is seen
 * within the tax year it may belong to. A copy-trading strategy can run longer on purpose: the
 * accountant then decides `held`, and the flag is answered.
 */
export const DEFAULT_COINS_AWAY_DAYS = 90;
export const MAX_COINS_AWAY_DAYS = 3660;

const DAY_MS = 24 * 60 * 60 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const AWAY_DECISIONS = ['held', 'lost'] as const;
export type AwayDecisionKind = (typeof AWAY_DECISIONS)[number];

/** The accountant's decision in effect on a move (its import not withdrawn). */
export interface AwayDecision {
  readonly decision: AwayDecisionKind;
  /** `lost`: the disposal's instant; `held`: when the coins were judged still held (ISO 8601 UTC). */
  readonly decidedAt: string;
  readonly quantity: string;
  readonly source: string;
  readonly note: string;
  readonly importId: string;
}

/** One move away that has not come back. */
export interface CoinsAwayMove {
  /** The spot record that moved the coins away, its id as the exchange gives it. */
  readonly recordId: string;
  readonly coin: string;
  /** What of the move is still away (the part no later return took back), exact. */
  readonly quantity: string;
  /** The move's instant, ISO 8601 UTC. */
  readonly movedAt: string;
  readonly movedAtMs: number;
  /** Whole days from the move to `now`. */
  readonly daysAway: number;
  readonly spotTaxType: string;
  readonly decision: AwayDecision | null;
}

interface OpenMove {
  recordId: string;
  coin: string;
  left: Decimal;
  ms: number;
  type: string;
}

/**
 * The moves away of the account's spot own moves (locks, Earn, strategy and other own accounts:
 * OWN_MOVE_TYPES, the walk's own moves) not back at `now` and away at least `days` whole days,
 * oldest first, each with the accountant's decision in effect, if any (docs/reports.md, "Coins
 * away"). Returns match moves of their coin oldest first (what comes back takes back the oldest
 * move still away), as the walk holds them per coin (own-moves-away.ts): a return does not say
 * which move it ends, so the oldest is the one taken to have come back, and what stays flagged is
 * the newest coins away, never an older move a later return may have ended.
 *
 * The accountants' page calls this; the summaries count its undecided moves at their period's end.
 */
export async function coinsAway(
  db: pg.Pool | pg.ClientBase,
  accountId: string,
  now: Date,
  options: { readonly days?: number | undefined } = {},
): Promise<CoinsAwayMove[]> {
  if (!UUID.test(accountId)) throw new ValidationError('accountId', 'must be a UUID', accountId);
  const nowMs = now instanceof Date ? now.getTime() : Number.NaN;
  if (!Number.isFinite(nowMs)) throw new ValidationError('now', 'must be a valid Date', now);
  const days = options.days ?? DEFAULT_COINS_AWAY_DAYS;
  if (!Number.isInteger(days) || days < 0 || days > MAX_COINS_AWAY_DAYS) {
    throw new ValidationError('days', `must be a whole number of days from 0 to ${MAX_COINS_AWAY_DAYS}`, days);
  }
  const { rows } = await db.query<{ recordId: string; coin: string; amount: string; ms: string; type: string }>(
    `SELECT record_id AS "recordId", coin, amount::text AS amount,
            (extract(epoch FROM ts) * 1000)::bigint::text AS ms, spot_tax_type AS type
       FROM spot_record
      WHERE account_id = $1::uuid AND ts < $2 AND spot_tax_type = ANY($3::text[]) AND amount <> 0
      ORDER BY ts, ${byteOrder('record_id')}`,
    [accountId, now.toISOString(), OWN_MOVE_TYPES],
  );
  const open = new Map<string, OpenMove[]>();
  for (const r of rows) {
    const amount = new Decimal(r.amount);
    const queue = open.get(r.coin) ?? [];
    open.set(r.coin, queue);
    if (amount.isNegative()) {
      queue.push({ recordId: r.recordId, coin: r.coin, left: amount.neg(), ms: Number(r.ms), type: r.type });
      continue;
    }
    let back = amount;
    while (back.gt(ZERO) && queue.length > 0) {
      const oldest = queue[0]!;
      const taken = Decimal.min(oldest.left, back);
      oldest.left = minus(oldest.left, taken);
      back = minus(back, taken);
      if (oldest.left.isZero()) queue.shift();
    }
  }
  const away = [...open.values()]
    .flat()
    .filter((move) => nowMs - move.ms >= days * DAY_MS)
    .sort((a, b) => a.ms - b.ms || (a.recordId < b.recordId ? -1 : a.recordId > b.recordId ? 1 : 0));
  const decisions = await decisionsInEffect(
    db,
    accountId,
    away.map((move) => move.recordId),
  );
  return away.map((move) => ({
    recordId: move.recordId,
    coin: move.coin,
    quantity: plain(move.left),
    movedAt: new Date(move.ms).toISOString(),
    movedAtMs: move.ms,
    daysAway: Math.floor((nowMs - move.ms) / DAY_MS),
    spotTaxType: move.type,
    decision: decisions.get(move.recordId) ?? null,
  }));
}

/** The decisions in effect (imports not withdrawn) on these moves, by record id. */
async function decisionsInEffect(
  db: pg.Pool | pg.ClientBase,
  accountId: string,
  recordIds: readonly string[],
): Promise<Map<string, AwayDecision>> {
  if (recordIds.length === 0) return new Map();
  const { rows } = await db.query<AwayDecision & { recordId: string }>(
    `SELECT d.record_id AS "recordId", d.decision,
            to_char(d.decided_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "decidedAt",
            d.quantity::text AS quantity, d.source, d.note, d.import_id::text AS "importId"
       FROM away_decision d JOIN away_decision_import i ON i.id = d.import_id
      WHERE d.account_id = $1::uuid AND d.record_id = ANY($2::text[]) AND i.withdrawn_at IS NULL
      ORDER BY d.id`,
    [accountId, recordIds],
  );
  return new Map(rows.map(({ recordId, ...decision }) => [recordId, decision]));
}
