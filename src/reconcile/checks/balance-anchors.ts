import type pg from 'pg';

import type { ExchangeClient } from '../../exchange/index.ts';
import { coveredRanges, type Range } from '../../ingest/coverage/coverage-summary.ts';
import { RUNNING_BALANCE_STREAM } from '../../streams/registry.ts';
import { spotRecord } from '../../streams/spot/pager.ts';
import { instant } from '../describe.ts';
import type { AnchorQuery, FreshReads } from '../fresh-reads.ts';
import { type ChainScope, isBefore } from './balance-checkpoint.ts';

const DAY = 86_400_000;
/** One request may span at most 30 days (spec, spot-record). */
const SPAN = 30 * DAY - 1;

export interface AnchorResult {
  /** Coins whose first and last stored records were checked against the exchange. */
  coins: number;
  failures: string[];
  /** Questions sent to the exchange. */
  requests: number;
}

export interface AnchorPlan {
  coins: number;
  queries: AnchorQuery[];
}

/**
 * The ends of each coin's balance chain, checked against the exchange. The
 * chain itself shows a missing record only between two stored ones: a
 * missing first or last record of a coin leaves no break. So, per coin, one
 * request asks for a record just before the first stored one (up to 30 days
 * back, within covered time), and one asks for the newest record in the
 * covered time up to 30 days after the last stored one: any answer other
 * than "none" and "the same record" is a stored copy that lacks a record.
 *
 * The ends come from the check's scope (balance-checkpoint.ts), never from a
 * sort of the history: a full check anchors every coin; a nightly one only
 * the coins it read, at their last record, and at their first only when that
 * is new (a coin first stored since, or a record before its first).
 *
 * Planned from the database first, so that the window re-counts of the same
 * run can answer the questions they cover (fresh-reads.ts).
 */
export async function planAnchors(pool: pg.Pool, accountId: string, scope: ChainScope): Promise<AnchorPlan> {
  if (scope.ends.length === 0) return { coins: 0, queries: [] };
  const covered = await coveredRanges(pool, { accountId, stream: RUNNING_BALANCE_STREAM, scope: '' });
  const holding = (ts: number): Range | undefined => covered.find((r) => r.start <= ts && ts < r.end);
  const queries: AnchorQuery[] = [];
  for (const { coin, first, last } of scope.ends) {
    const checkpoint = scope.checkpoints.get(coin);
    const newFirst = scope.full || !checkpoint || isBefore(first, checkpoint.first);
    const before = newFirst ? holding(first.ts) : undefined;
    if (before) {
      queries.push({
        coin,
        side: 'before',
        startTime: Math.max(before.start, first.ts - SPAN),
        endTime: first.ts,
        idLessThan: first.recordId,
        storedId: first.recordId,
      });
    }
    const after = holding(last.ts);
    if (after) {
      queries.push({
        coin,
        side: 'after',
        startTime: last.ts,
        endTime: Math.min(after.end - 1, last.ts + SPAN),
        storedId: last.recordId,
      });
    }
  }
  return { coins: scope.ends.length, queries };
}

/** Answers each planned question from the run's re-reads where they cover it, else from the exchange. */
export async function anchorCoinEnds(
  plan: AnchorPlan,
  client: () => Promise<ExchangeClient>,
  fresh?: FreshReads,
): Promise<AnchorResult> {
  const failures: string[] = [];
  let requests = 0;
  await fresh?.ready;
  for (const q of plan.queries) {
    let answer = fresh?.anchorAnswer(q);
    if (answer === undefined) {
      const exchange = await client();
      requests += 1;
      const [record] = await spotRecord(exchange, {
        coin: q.coin,
        startTime: String(q.startTime),
        endTime: String(q.endTime),
        ...(q.idLessThan === undefined ? {} : { idLessThan: q.idLessThan }),
        limit: 1,
      });
      answer = record ? { id: record.id, ts: Number(record.ts) } : null;
    }
    if (answer === null) continue;
    if (q.side === 'before') {
      failures.push(
        `${q.coin}: record ${answer.id} at ${instant(answer.ts)} is on the exchange but not stored, ` +
          `before the first stored record ${q.storedId}`,
      );
    } else if (answer.id !== q.storedId) {
      failures.push(
        `${q.coin}: record ${answer.id} at ${instant(answer.ts)} is on the exchange but not stored, ` +
          `after the last stored record ${q.storedId}`,
      );
    }
  }
  return { coins: plan.coins, failures, requests };
}
