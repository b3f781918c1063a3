import { Decimal } from 'decimal.js';
import type pg from 'pg';

import type { SuppliedSale } from '../gains/supplied-proceeds.ts';

/** The account's supplied proceeds of P2P sells (proceeds-import.ts), for a walk (walk-history.ts). */
export async function loadSuppliedProceeds(db: pg.ClientBase, accountId: string): Promise<SuppliedSale[]> {
  const { rows } = await db.query<{ recordId: string; proceeds: string; currency: string; source: string }>(
    `SELECT record_id AS "recordId", proceeds::text, currency, source
       FROM supplied_proceeds WHERE account_id = $1::uuid ORDER BY id`,
    [accountId],
  );
  return rows.map((row) => ({ ...row, proceeds: new Decimal(row.proceeds) }));
}
