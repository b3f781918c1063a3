import { Decimal } from 'decimal.js';
import type pg from 'pg';

import { loadSuppliedLots } from '../accounting/cost-basis/supplied-lots.ts';
import { FILING_CURRENCY, type RulesMethod } from '../accounting/gains/gains-method.ts';
import { SuppliedCosts } from '../accounting/gains/supplied-costs.ts';
import { minus, plain, plus, ZERO } from '../accounting/lots/lot-arithmetic.ts';
import { typesTreatedAs } from '../accounting/treatments/treatment-table.ts';
import { type Html, html } from './html.ts';

const METHODS: readonly RulesMethod[] = ['uk', 'de'];

/** Per coin: how much was moved in from outside and how much of it no supplied cost covers, per method. */
export interface UnknownCost {
  coin: string;
  deposits: number;
  movedIn: string;
  /** Per method: the quantity its currency's supplied lots cover (GBP lots for uk, EUR for de). */
  supplied: Record<RulesMethod, string>;
  /** Per method: the quantity no supplied lot in its currency covers. */
  lacking: Record<RulesMethod, string>;
}

/** One coin moved in (a deposit, a P2P buy) and what of it lacks a cost, per method. */
export interface LackingDeposit {
  /** As the gains reports name it: `spot:<id>` or `p2p:<id>`. */
  recordId: string;
  coin: string;
  atMs: number;
  quantity: string;
  lacking: Record<RulesMethod, string>;
}

const depositTypes = (ledger: 'spot' | 'p2p') => typesTreatedAs(ledger, 'deposit');
/** Spot deposits: coins moved in from outside, cost unknown until supplied. */
export const DEPOSIT_TYPES = depositTypes('spot');
/** P2P buys: bought for fiat the record does not state (docs/reports.md, "Margin and P2P"). */
export const P2P_DEPOSIT_TYPES = depositTypes('p2p');

/**
 * Every coin moved in (spot deposits and P2P buys) with what of it lacks a cost under each method:
 * the supplied lots of live imports in the method's currency (GBP for uk, EUR for de: the walks
 * convert nothing) handed out as the walks hand them out (SuppliedCosts: each deposit, in arrival
 * order, takes from the coin's lots acquired at or before it, oldest first). A lot in another
 * currency (USD), or acquired after the deposit, covers nothing here, as it prices nothing there.
 */
export async function depositsLackingCost(pool: pg.Pool, accountId: string): Promise<LackingDeposit[]> {
  const { rows } = await pool.query<{ recordId: string; coin: string; ms: string; quantity: string }>(
    `SELECT 'spot:' || record_id AS "recordId", coin, (extract(epoch FROM ts) * 1000)::bigint::text AS ms,
            amount::text AS quantity
       FROM spot_record WHERE account_id = $1 AND spot_tax_type = ANY($2::text[]) AND amount > 0
     UNION ALL
     SELECT 'p2p:' || record_id, coin, (extract(epoch FROM ts) * 1000)::bigint::text, total::text
       FROM p2p_ledger_record WHERE account_id = $1 AND p2p_tax_type = ANY($3::text[]) AND total > 0
     ORDER BY 3, 1`,
    [accountId, DEPOSIT_TYPES, P2P_DEPOSIT_TYPES],
  );
  const lots = await loadSuppliedLots(pool, accountId);
  const costs = Object.fromEntries(METHODS.map((m) => [m, new SuppliedCosts(lots, FILING_CURRENCY[m])])) as Record<
    RulesMethod,
    SuppliedCosts
  >;
  return rows.map((row) => {
    const atMs = Number(row.ms);
    const lacking = {} as Record<RulesMethod, string>;
    const quantity = new Decimal(row.quantity);
    for (const method of METHODS) {
      const covered = costs[method].take(row.coin, quantity, atMs).reduce((sum, p) => plus(sum, p.quantity), ZERO);
      lacking[method] = plain(minus(quantity, covered));
    }
    return { recordId: row.recordId, coin: row.coin, atMs, quantity: row.quantity, lacking };
  });
}

const lacks = (d: LackingDeposit) => METHODS.some((m) => d.lacking[m] !== '0');

/**
 * What lacks a cost (docs/reports.md, "Unknown cost"): per coin moved in, how much no supplied cost
 * covers under each method (depositsLackingCost), the coins where any does; exact text.
 */
export async function unknownCosts(pool: pg.Pool, accountId: string): Promise<UnknownCost[]> {
  const byCoin = new Map<string, { deposits: number; movedIn: Decimal; lacking: Record<RulesMethod, Decimal> }>();
  for (const d of await depositsLackingCost(pool, accountId)) {
    const entry = byCoin.get(d.coin) ?? { deposits: 0, movedIn: ZERO, lacking: { uk: ZERO, de: ZERO } };
    entry.deposits++;
    entry.movedIn = plus(entry.movedIn, new Decimal(d.quantity));
    for (const m of METHODS) entry.lacking[m] = plus(entry.lacking[m], new Decimal(d.lacking[m]));
    byCoin.set(d.coin, entry);
  }
  return [...byCoin]
    .filter(([, e]) => METHODS.some((m) => !e.lacking[m].isZero()))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([coin, e]) => ({
      coin,
      deposits: e.deposits,
      movedIn: plain(e.movedIn),
      supplied: { uk: plain(minus(e.movedIn, e.lacking.uk)), de: plain(minus(e.movedIn, e.lacking.de)) },
      lacking: { uk: plain(e.lacking.uk), de: plain(e.lacking.de) },
    }));
}

/** The deposits that lack a cost under some method, oldest first. */
export const lackingDeposits = (deposits: readonly LackingDeposit[]) => deposits.filter(lacks);

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
      ${supplyWords(supplyHref, 'ledgerline cost-basis import')}.
    </p>
    <table class="lacking-costs">
      <thead>
        <tr>
          <th>Coin</th>
          <th>Deposits</th>
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

/** P2P sells: sold for fiat the record does not state (docs/reports.md, "Unknown proceeds"). */
export const P2P_SELL_TYPES = typesTreatedAs('p2p', 'unknown-proceeds');

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
