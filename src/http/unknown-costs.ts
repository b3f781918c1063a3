import type pg from 'pg';

import { RULES_METHODS, type UnknownCost } from '../accounting/cost-basis/arrivals-lacking-cost.ts';
import { FILING_CURRENCY, type RulesMethod } from '../accounting/gains/gains-method.ts';
import { P2P_SELL_TYPES } from '../accounting/gains/unknown-cost-arrivals.ts';
import { type Html, html } from './html.ts';

const METHODS = RULES_METHODS;

export {
  depositsLackingCost,
  type LackingDeposit,
  lackingDeposits,
  type UnknownCost,
  unknownCosts,
  unknownCostsOf,
} from '../accounting/cost-basis/arrivals-lacking-cost.ts';
export { DEPOSIT_TYPES, P2P_DEPOSIT_TYPES, P2P_SELL_TYPES } from '../accounting/gains/unknown-cost-arrivals.ts';

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

const methodHeading = (m: RulesMethod) => `${m} (${FILING_CURRENCY[m]})`;

/** Where the accountant supplies what lacks (the supply page: routes/supply-routes.ts). */
export const supplyPath = (accountId: string) => `/supplied/${encodeURIComponent(accountId)}`;

const supplyWords = (supplyHref: string | undefined, cli: string) =>
  supplyHref === undefined
    ? html`(<code>${cli}</code>)`
    : html`(<a class="supply" href="${supplyHref}">supply them on the page</a>, or <code>${cli}</code>)`;

export function unknownCostsSection(rows: readonly UnknownCost[], supplyHref?: string): Html {
  if (rows.length === 0) return html`<p>Every coin moved in has a supplied cost.</p>`;
  return html`<p>
      Coins moved in without a cost: their sales are
      <abbr title="flagged review:unknown-cost">marked for review</abbr> and left out of the tax figures until their
      cost and purchase date are supplied, in pounds for the UK figures and in euros for the German ones
      ${supplyWords(supplyHref, 'ledgerline cost-basis import')}. Coins moved in are deposits, P2P buys, futures
      transfers in with no spot side, and coins back from a strategy, Earn or a lock beyond what went there.
    </p>
    <ul class="lacking-counts">
      ${METHODS.map((m) => {
        const arrivals = rows.reduce((n, r) => n + r.arrivalsLacking[m], 0);
        const coins = rows.filter((r) => r.lacking[m] !== '0').length;
        return html`<li data-method="${m}">
          ${methodHeading(m)}: ${count(arrivals, 'arrival', 'arrivals')} of ${count(coins, 'coin', 'coins')} lacking a
          cost
        </li>`;
      })}
    </ul>
    <table class="lacking-costs">
      <thead>
        <tr>
          <th>Coin</th>
          <th>Arrivals</th>
          <th>Moved in</th>
          ${METHODS.map((m) => html`<th>Lacking a cost, ${methodHeading(m)}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (r) =>
            html`<tr data-coin="${r.coin}">
              <td>${r.coin}</td>
              <td>${r.deposits}</td>
              <td>${r.movedIn}</td>
              ${METHODS.map((m) => html`<td data-method="${m}">${r.lacking[m]}</td>`)}
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
  /** The currencies its proceeds were supplied in by live imports, comma-separated ('' for none). */
  suppliedIn: string;
}

/**
 * What lacks proceeds: each P2P sell of the account whose proceeds no live import supplies in both
 * filing currencies (FILING_CURRENCY: GBP for uk, EUR for de), oldest first.
 */
export async function lackingProceeds(pool: pg.Pool, accountId: string): Promise<LackingProceeds[]> {
  const { rows } = await pool.query<LackingProceeds>(
    `WITH live AS (
       SELECT p.record_id, p.currency FROM supplied_proceeds p
         JOIN proceeds_import i ON i.id = p.import_id AND i.withdrawn_at IS NULL
        WHERE p.account_id = $1
     )
     SELECT 'p2p:' || r.record_id AS "recordId",
            to_char(r.ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS "soldAt",
            r.coin, abs(r.total)::text AS quantity,
            coalesce((SELECT string_agg(DISTINCT s.currency, ',') FROM live s
                       WHERE s.record_id = 'p2p:' || r.record_id), '') AS "suppliedIn"
       FROM p2p_ledger_record r
      WHERE r.account_id = $1 AND r.p2p_tax_type = ANY($2::text[])
        AND (SELECT count(DISTINCT s.currency) FROM live s
              WHERE s.record_id = 'p2p:' || r.record_id AND s.currency = ANY($3::text[])) < cardinality($3::text[])
      ORDER BY r.ts, r.record_id`,
    [accountId, P2P_SELL_TYPES, Object.values(FILING_CURRENCY)],
  );
  return rows;
}

export function lackingProceedsSection(rows: readonly LackingProceeds[], supplyHref?: string): Html {
  if (rows.length === 0) return html`<p>Every P2P sale has supplied proceeds.</p>`;
  return html`<p>
      P2P sales whose records state no price: their rows are
      <abbr title="flagged review:unknown-proceeds">marked for review</abbr> and left out of the tax figures until the
      proceeds from the bank statement are supplied in pounds and euros
      ${supplyWords(supplyHref, 'ledgerline proceeds import')}, one per sale and currency, naming the sale as below.
    </p>
    <table class="lacking-proceeds">
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
            html`<tr data-sale="${r.recordId}">
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
