import { Decimal } from 'decimal.js';
import type pg from 'pg';

import type { SuppliedLot } from '../gains/supplied-costs.ts';

/** The account's supplied lots (cost-basis-import.ts), for a walk (walk-history.ts). */
export async function loadSuppliedLots(db: pg.ClientBase, accountId: string): Promise<SuppliedLot[]> {
  const { rows } = await db.query<{
    coin: string;
    quantity: string;
    ms: string;
    cost: string;
    currency: string;
    source: string;
  }>(
    `SELECT coin, quantity::text, (extract(epoch FROM acquired_at) * 1000)::bigint::text AS ms, cost::text, currency, source
       FROM cost_basis_lot WHERE account_id = $1::uuid ORDER BY acquired_at, id`,
    [accountId],
  );
  return rows.map((row) => ({
    coin: row.coin,
    quantity: new Decimal(row.quantity),
    acquiredAtMs: Number(row.ms),
    cost: new Decimal(row.cost),
    currency: row.currency,
    source: row.source,
  }));
}
