import { Decimal } from 'decimal.js';
import type pg from 'pg';

import type { SuppliedLot } from '../gains/supplied-costs.ts';

/** The account's supplied lots of imports not withdrawn (cost-basis-import.ts), for a walk (walk-history.ts). */
export async function loadSuppliedLots(db: pg.ClientBase | pg.Pool, accountId: string): Promise<SuppliedLot[]> {
  const { rows } = await db.query<{
    coin: string;
    quantity: string;
    ms: string;
    cost: string;
    currency: string;
    source: string;
  }>(
    `SELECT l.coin, l.quantity::text, (extract(epoch FROM l.acquired_at) * 1000)::bigint::text AS ms, l.cost::text,
            l.currency, l.source
       FROM cost_basis_lot l JOIN cost_basis_import i ON i.id = l.import_id AND i.withdrawn_at IS NULL
      WHERE l.account_id = $1::uuid ORDER BY l.acquired_at, l.id`,
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
