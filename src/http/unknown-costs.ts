import type pg from 'pg';

import { TREATMENTS } from '../accounting/treatments/treatment-table.ts';
import { Html, html } from './html.ts';

/** Per coin: how much was moved in from outside and how much of it no supplied cost covers. */
export interface UnknownCost {
  coin: string;
  deposits: number;
  movedIn: string;
  supplied: string;
  lacking: string;
}

const DEPOSIT_TYPES = Object.entries(TREATMENTS.spot)
  .filter(([, treatment]) => treatment.kind === 'deposit')
  .map(([type]) => type);

/**
 * What lacks a cost (docs/reports.md, "Unknown cost"): the coins moved in (deposits) beyond the
 * quantity `ledgerline cost-basis import` supplied costs for, per coin; exact text, as stored.
 */
export async function unknownCosts(pool: pg.Pool, accountId: string): Promise<UnknownCost[]> {
  const { rows } = await pool.query<UnknownCost>(
    `WITH moved AS (
       SELECT coin, count(*)::int AS deposits, sum(amount) AS quantity FROM spot_record
        WHERE account_id = $1 AND spot_tax_type = ANY($2::text[]) AND amount > 0 GROUP BY coin
     ), supplied AS (
       SELECT coin, sum(quantity) AS quantity FROM cost_basis_lot WHERE account_id = $1 GROUP BY coin
     )
     SELECT m.coin, m.deposits, m.quantity::text AS "movedIn", coalesce(s.quantity, 0)::text AS supplied,
            (m.quantity - coalesce(s.quantity, 0))::text AS lacking
       FROM moved m LEFT JOIN supplied s USING (coin)
      WHERE m.quantity > coalesce(s.quantity, 0)
      ORDER BY m.coin`,
    [accountId, DEPOSIT_TYPES],
  );
  return rows;
}

export function unknownCostsSection(rows: readonly UnknownCost[]): Html {
  if (rows.length === 0) return html`<p>Every coin moved in has a supplied cost.</p>`;
  return html`<p>
      Coins moved in without a cost: their sales are
      <abbr title="flagged review:unknown-cost">marked for review</abbr> and left out of the tax figures until their
      cost and purchase date are supplied (<code>ledgerline cost-basis import</code>).
    </p>
    <table>
      <thead>
        <tr>
          <th>Coin</th>
          <th>Deposits</th>
          <th>Moved in</th>
          <th>Cost supplied for</th>
          <th>Lacking a cost</th>
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (r) =>
            html`<tr>
              <td>${r.coin}</td>
              <td>${r.deposits}</td>
              <td>${r.movedIn}</td>
              <td>${r.supplied}</td>
              <td>${r.lacking}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}
