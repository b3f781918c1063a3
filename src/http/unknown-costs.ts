import type pg from 'pg';

import { FILING_CURRENCY } from '../accounting/gains/gains-method.ts';
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

const depositTypes = (ledger: 'spot' | 'p2p') =>
  Object.entries(TREATMENTS[ledger])
    .filter(([, treatment]) => treatment.kind === 'deposit')
    .map(([type]) => type);
/** Spot deposits: coins moved in from outside, cost unknown until supplied. */
export const DEPOSIT_TYPES = depositTypes('spot');
/** P2P buys: bought for fiat the record does not state (docs/reports.md, "Margin and P2P"). */
export const P2P_DEPOSIT_TYPES = depositTypes('p2p');

/**
 * What lacks a cost (docs/reports.md, "Unknown cost"): the coins moved in (deposits, and P2P buys)
 * beyond the quantity `ledgerline cost-basis import` supplied costs for, per coin; exact text, as stored.
 */
export async function unknownCosts(pool: pg.Pool, accountId: string): Promise<UnknownCost[]> {
  const { rows } = await pool.query<UnknownCost>(
    `WITH moved AS (
       SELECT coin, count(*)::int AS deposits, sum(quantity) AS quantity FROM (
         SELECT coin, amount AS quantity FROM spot_record
          WHERE account_id = $1 AND spot_tax_type = ANY($2::text[]) AND amount > 0
         UNION ALL
         SELECT coin, total FROM p2p_ledger_record
          WHERE account_id = $1 AND p2p_tax_type = ANY($3::text[]) AND total > 0
       ) d GROUP BY coin
     ), supplied AS (
       SELECT coin, sum(quantity) AS quantity FROM cost_basis_lot WHERE account_id = $1 GROUP BY coin
     )
     SELECT m.coin, m.deposits, m.quantity::text AS "movedIn", coalesce(s.quantity, 0)::text AS supplied,
            (m.quantity - coalesce(s.quantity, 0))::text AS lacking
       FROM moved m LEFT JOIN supplied s USING (coin)
      WHERE m.quantity > coalesce(s.quantity, 0)
      ORDER BY m.coin`,
    [accountId, DEPOSIT_TYPES, P2P_DEPOSIT_TYPES],
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

/** A P2P sell whose proceeds are not supplied in every filing currency (pounds for uk, euros for de). */
export interface LackingProceeds {
  /** As the gains reports name the sale, and as `ledgerline proceeds import` takes it. */
  recordId: string;
  soldAt: string;
  coin: string;
  quantity: string;
  /** The currencies its proceeds were supplied in, comma-separated ('' for none). */
  suppliedIn: string;
}

/** P2P sells: sold for fiat the record does not state (docs/reports.md, "Unknown proceeds"). */
export const P2P_SELL_TYPES = Object.entries(TREATMENTS.p2p)
  .filter(([, treatment]) => treatment.kind === 'unknown-proceeds')
  .map(([type]) => type);

/**
 * What lacks proceeds: each P2P sell of the account whose proceeds `ledgerline proceeds import`
 * has not supplied in both filing currencies (FILING_CURRENCY: GBP for uk, EUR for de), oldest first.
 */
export async function lackingProceeds(pool: pg.Pool, accountId: string): Promise<LackingProceeds[]> {
  const { rows } = await pool.query<LackingProceeds>(
    `SELECT 'p2p:' || r.record_id AS "recordId",
            to_char(r.ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS "soldAt",
            r.coin, abs(r.total)::text AS quantity,
            coalesce((SELECT string_agg(s.currency, ',' ORDER BY s.currency) FROM supplied_proceeds s
                       WHERE s.account_id = r.account_id AND s.record_id = 'p2p:' || r.record_id), '') AS "suppliedIn"
       FROM p2p_ledger_record r
      WHERE r.account_id = $1 AND r.p2p_tax_type = ANY($2::text[])
        AND (SELECT count(DISTINCT s.currency) FROM supplied_proceeds s
              WHERE s.account_id = r.account_id AND s.record_id = 'p2p:' || r.record_id
                AND s.currency = ANY($3::text[])) < cardinality($3::text[])
      ORDER BY r.ts, r.record_id`,
    [accountId, P2P_SELL_TYPES, Object.values(FILING_CURRENCY)],
  );
  return rows;
}

export function lackingProceedsSection(rows: readonly LackingProceeds[]): Html {
  if (rows.length === 0) return html`<p>Every P2P sale has supplied proceeds.</p>`;
  return html`<p>
      P2P sales whose records state no price: their rows are
      <abbr title="flagged review:unknown-proceeds">marked for review</abbr> and left out of the tax figures until the
      proceeds from the bank statement are supplied in pounds and euros (<code>ledgerline proceeds import</code>, one
      row per sale and currency, naming the sale as below).
    </p>
    <table>
      <thead>
        <tr>
          <th>Sale</th>
          <th>Sold at (UTC)</th>
          <th>Coin</th>
          <th>Quantity</th>
          <th>Proceeds supplied in</th>
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (r) =>
            html`<tr>
              <td><code>${r.recordId}</code></td>
              <td>${r.soldAt}</td>
              <td>${r.coin}</td>
              <td>${r.quantity}</td>
              <td>${r.suppliedIn === '' ? '—' : r.suppliedIn}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}
