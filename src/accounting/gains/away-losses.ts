import { Decimal } from 'decimal.js';
import type pg from 'pg';

import { textSafeId } from '../../booking/text-safe-ids.ts';

/** An accountant's `lost` decision on coins away (away-decision-import.ts), as a walk applies it. */
export interface AwayLoss {
  /** The move's spot record id as the exchange gives it. */
  readonly recordId: string;
  readonly coin: string;
  readonly quantity: Decimal;
  /** The disposal's instant. */
  readonly lostAtMs: number;
  /** Where the decision comes from (the file's `source`), carried into the disposal's record ids. */
  readonly source: string;
}

/**
 * The `lost` decisions of one walk, in time order: each is a disposal for nothing of the coins
 * still away, at its instant (walk-history.ts), after every entry at or before that instant. A
 * decision of a withdrawn import is not loaded (loadAwayLosses): the walk never sees it.
 */
export class AwayLosses {
  private readonly pending: AwayLoss[];

  constructor(losses: readonly AwayLoss[]) {
    this.pending = [...losses].sort(
      (a, b) => a.lostAtMs - b.lostAtMs || (a.recordId < b.recordId ? -1 : a.recordId > b.recordId ? 1 : 0),
    );
  }

  get size(): number {
    return this.pending.length;
  }

  /** The losses due before an entry at `atMs` (strictly earlier instants), taken off the list. */
  dueBefore(atMs: number): AwayLoss[] {
    let count = 0;
    while (count < this.pending.length && this.pending[count]!.lostAtMs < atMs) count++;
    return this.pending.splice(0, count);
  }

  /** Every loss not yet applied (the history has ended). */
  rest(): AwayLoss[] {
    return this.pending.splice(0, this.pending.length);
  }

  /** A disposal's record ids: the move's, then the decision's source (as a supplied cost's are). */
  static recordIds(loss: AwayLoss): string {
    return `${textSafeId('spot', loss.recordId)}<${loss.source}`;
  }
}

/** The account's `lost` decisions in effect (imports not withdrawn), for a walk. */
export async function loadAwayLosses(db: pg.ClientBase | pg.Pool, accountId: string): Promise<AwayLoss[]> {
  const { rows } = await db.query<{ recordId: string; coin: string; quantity: string; ms: string; source: string }>(
    `SELECT d.record_id AS "recordId", d.coin, d.quantity::text AS quantity,
            (extract(epoch FROM d.decided_at) * 1000)::bigint::text AS ms, d.source
       FROM away_decision d JOIN away_decision_import i ON i.id = d.import_id
      WHERE d.account_id = $1::uuid AND d.decision = 'lost' AND i.withdrawn_at IS NULL
      ORDER BY d.decided_at, d.record_id`,
    [accountId],
  );
  return rows.map((r) => ({
    recordId: r.recordId,
    coin: r.coin,
    quantity: new Decimal(r.quantity),
    lostAtMs: Number(r.ms),
    source: r.source,
  }));
}
