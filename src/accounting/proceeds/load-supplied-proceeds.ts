import { Decimal } from 'decimal.js';
import type pg from 'pg';

import type { SuppliedSale } from '../gains/supplied-proceeds.ts';

/** The account's supplied proceeds of P2P sells, of imports not withdrawn (proceeds-import.ts), for a walk. */
export async function loadSuppliedProceeds(db: pg.ClientBase, accountId: string): Promise<SuppliedSale[]> {
  const { rows } = await db.query<{ recordId: string; proceeds: string; currency: string; source: string }>(
    `SELECT p.record_id AS "recordId", p.proceeds::text, p.currency, p.source
       FROM supplied_proceeds p JOIN proceeds_import i ON i.id = p.import_id AND i.withdrawn_at IS NULL
      WHERE p.account_id = $1::uuid ORDER BY p.id`,
    [accountId],
  );
  return rows.map((row) => ({ ...row, proceeds: new Decimal(row.proceeds) }));
}
