import { DE_FILING_ROUNDING_RULE, UK_FILING_ROUNDING_RULE } from '../accounting/gains/filing-rounding.ts';
import { FILING_CURRENCY, type RulesMethod } from '../accounting/gains/gains-method.ts';
import { gapList, minute } from './coverage-timeline.ts';
import type { FilingYear, MethodFigures, SummaryRow } from './filing-figures.ts';
import { computingNote, recalculatingStatus } from './filing-freshness.ts';
import { type Html, html } from './html.ts';
import { header, layout, type PageContext } from './page-layout.ts';
import { plain } from './plain-words.ts';
import { amountWords, dayWords, taxYearWords } from './tax-year-words.ts';
import {
  type LackingProceeds,
  lackingProceedsSection,
  type UnknownCost,
  unknownCostsSection,
} from './unknown-costs.ts';

/** A figure of the summary row, by its column: the CSV's text, with the currency and commas added. */
function figure(row: SummaryRow, column: string, label: Html | string, currency?: string): Html {
  const value = row[column] ?? '';
  const shown = value === '' ? '—' : currency === undefined ? value : amountWords(value, currency);
  return html`<tr data-field="${column}">
    <th>${label}</th>
    <td class="figure">${shown}</td>
  </tr>`;
}

function status(fy: FilingYear, now: number): Html {
  if (fy.computing === true) return recalculatingStatus(fy);
  const reasons: Html[] = [];
  if (!fy.complete) {
    reasons.push(
      fy.year.endMs > now
        ? html`<p>
            The year is not over: the figures run to
            ${fy.readTo === undefined ? dayWords(fy.method, now) : html`the last records read, ${minute(fy.readTo)}`}.
          </p>`
        : html`<p>The figures cover part of the year only.</p>`,
    );
  }
  if (fy.gaps.length > 0) {
    reasons.push(
      html`<p>Records are missing, so the figures may be short:</p>
        ${gapList(fy.gaps)}`,
    );
  }
  if (reasons.length === 0) {
    return html`<p class="status complete">Complete: the whole year, every record read.</p>`;
  }
  return html`<div class="status incomplete">
    <p class="partial">Not complete.</p>
    ${reasons}
  </div>`;
}

const hasAmount = (value: string | undefined) => value !== undefined && value !== '' && !/^-?0(\.0*)?$/.test(value);

/** "ETH 1.3, SOL 2": the coins whose rows carry a quantity in `column`. */
function perCoin(fy: FilingYear, column: string): string {
  return fy.coins
    .filter((r) => hasAmount(r[column]))
    .map((r) => `${r.coin} ${r[column]}`)
    .join(', ');
}

/** What the figures leave out or count at a guess: the counts that change them once known. */
function reviewTable(fy: FilingYear, currency: string, unpricedColumn: string): Html {
  const f = fy.filing;
  const withdrawn = perCoin(fy, 'withdrawn_beyond_holdings');
  return html`<table class="review">
    <tbody>
      ${figure(f, unpricedColumn, `Sales with no ${currency} price for the day (left out of the figures)`)}
      <tr data-field="unknown_cost_proceeds">
        <th>
          ${plain('Sold from coins whose cost nobody supplied', 'review:unknown-cost')} (left out of the figures: supply
          the cost with <code>ledgerline cost-basis import</code>)
        </th>
        <td class="figure">
          ${amountWords(f.unknown_cost_proceeds || '0', currency)}
          received${perCoin(fy, 'unknown_cost_quantity') ? html`; ${perCoin(fy, 'unknown_cost_quantity')}` : ''}
        </td>
      </tr>
      <tr data-field="beyond_holdings_proceeds">
        <th>
          ${plain('Sold beyond the coins held', 'review:disposal-exceeds-holdings')} (in the figures at a cost of 0, the
          most they can gain)
        </th>
        <td class="figure">
          ${amountWords(f.beyond_holdings_proceeds || '0', currency)}
          received${perCoin(fy, 'beyond_holdings_quantity') ? html`; ${perCoin(fy, 'beyond_holdings_quantity')}` : ''}
        </td>
      </tr>
      ${
        withdrawn
          ? html`<tr data-field="withdrawn_beyond_holdings">
              <th>
                ${plain('Withdrawn beyond the coins held', 'review:withdrawal-exceeds-holdings')} (nothing realized)
              </th>
              <td class="figure">${withdrawn}</td>
            </tr>`
          : ''
      }
    </tbody>
  </table>`;
}

function futuresTable(fy: FilingYear, currency: string, heading: Html): Html {
  if (fy.futures.length === 0) return html`<p>No futures results this year.</p>`;
  return html`<p>${heading}</p>
    <div class="scroll">
      <table class="futures">
        <thead>
          <tr>
            <th>Margin coin</th>
            <th>Realized profit or loss</th>
            <th>Fees</th>
            <th>Funding</th>
            <th>Net</th>
            <th>Net in ${currency}</th>
            <th>Records without a ${currency} rate</th>
          </tr>
        </thead>
        <tbody>
          ${fy.futures.map(
            (r) =>
              html`<tr data-coin="${r.coin}">
                <td>${r.coin}</td>
                <td data-field="realized_pnl">${r.realized_pnl}</td>
                <td data-field="fees">${r.fees}</td>
                <td data-field="funding">${r.funding}</td>
                <td data-field="futures_net">${r.futures_net}</td>
                <td data-field="futures_net_value">${amountWords(r.futures_net_value || '0', currency)}</td>
                <td data-field="unpriced_futures_records">${r.unpriced_futures_records}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
}

function ukYear(fy: FilingYear, now: number): Html {
  const currency = FILING_CURRENCY.uk;
  const f = fy.filing;
  return html`<section class="filing-year" data-method="uk" data-year="${fy.year.label}">
    <h3>${taxYearWords('uk', fy.year)}</h3>
    ${status(fy, now)}
    <table class="filing">
      <caption>
        Capital Gains summary (SA108), cryptoassets, in whole pounds
      </caption>
      <tbody>
        ${figure(f, 'disposals', 'Number of disposals')} ${figure(f, 'proceeds', 'Disposal proceeds', currency)}
        ${figure(f, 'allowable_costs', 'Allowable costs (including purchase price)', currency)}
        ${figure(f, 'gains', 'Gains in the year, before losses', currency)}
        ${figure(f, 'losses', 'Losses in the year', currency)}
      </tbody>
    </table>
    <p class="rule">Rounding: ${UK_FILING_ROUNDING_RULE}.</p>
    ${reviewTable(fy, currency, 'unpriced_disposals')}
    ${futuresTable(
      fy,
      currency,
      html`Futures results: in none of the figures above. Whether they are capital gains or income is your call.`,
    )}
  </section>`;
}

/** The Freigrenze of private sales in words, from the year's total row (decideFreigrenze). */
function freigrenzeWords(total: SummaryRow, currency: string): Html {
  const limit = total.freigrenze ? amountWords(total.freigrenze, currency) : '';
  if (total.below_freigrenze === 'yes') {
    return html`Below the Freigrenze of ${limit}: the private sales are not taxed this year.`;
  }
  if (total.below_freigrenze === 'no') {
    return html`Reaches the Freigrenze of ${limit}: all of it is taxable,
    ${amountWords(total.taxable_amount ?? '0', currency)}.`;
  }
  if (total.complete !== 'true') return html`Not decided: the figures are part of the year only.`;
  return html`Not decided until the missing costs are known: ${total.note}.`;
}

function deYear(fy: FilingYear, now: number): Html {
  const currency = FILING_CURRENCY.de;
  const f = fy.filing;
  return html`<section class="filing-year" data-method="de" data-year="${fy.year.label}">
    <h3>${taxYearWords('de', fy.year)}</h3>
    ${status(fy, now)}
    <table class="filing">
      <caption>
        Anlage SO, in whole euros
      </caption>
      <tbody>
        ${figure(f, 'taxable_proceeds', 'Private sales held one year or less (§ 23 EStG): sale price (Veräußerungspreis)', currency)}
        ${figure(f, 'taxable_cost', 'Their cost (Anschaffungskosten, with fees)', currency)}
        ${figure(f, 'taxable_gain', 'Gain or loss', currency)}
        <tr data-field="below_freigrenze">
          <th>Freigrenze (§ 23 (3) EStG)</th>
          <td class="words">${freigrenzeWords(fy.total, currency)}</td>
        </tr>
        ${figure(f, 'other_income', 'Other income (§ 22 Nr. 3 EStG): rewards, interest', currency)}
      </tbody>
    </table>
    <p class="rule">Rounding: ${DE_FILING_ROUNDING_RULE}.</p>
    ${reviewTable(fy, currency, 'unpriced_matches')}
    ${futuresTable(
      fy,
      currency,
      html`Futures results (Termingeschäfte, § 20 EStG, Anlage KAP): not private sales, in none of the figures above.`,
    )}
  </section>`;
}

const YEAR_STYLE = `.filing-year{border-top:2px solid #d8dee4;margin-top:1.5rem}.figure{text-align:right;white-space:nowrap}
table.filing,table.review{max-width:48rem}td.words{min-width:12rem}caption{text-align:left;font-weight:600;padding:.25rem 0}
.status.complete{color:#067647;font-weight:600}.rule{font-size:.85rem;color:#57606a}`;

export interface TaxYearsView {
  account: { id: string; name: string };
  uk: FilingYear[];
  de: FilingYear[];
  unknownCosts: UnknownCost[];
  /** P2P sells lacking supplied proceeds (unknown-costs.ts lackingProceeds). */
  lackingProceeds: LackingProceeds[];
  now: number;
  /** How each method's figures stand (filing-figures.ts): being computed, as of when. */
  figures?: Partial<Record<RulesMethod, MethodFigures>>;
}

function methodSection(method: RulesMethod, years: FilingYear[], now: number, figures?: MethodFigures): Html {
  if (years.length === 0) {
    return figures?.computing === true ? computingNote(method, figures) : html`<p>No records yet.</p>`;
  }
  // Newest year first: the one being prepared.
  return html`${[...years].reverse().map((fy) => (method === 'uk' ? ukYear(fy, now) : deYear(fy, now)))}`;
}

/**
 * The figures for the tax return, per tax year, of one account: the same rows as the filing
 * summaries' CSV (filing-figures.ts), in an accountant's words, each year marked complete or not,
 * with what lacks a cost and the counts that would change the figures.
 */
export function taxYearsPage(view: TaxYearsView, context: PageContext): Html {
  const base = `Tax years: ${view.account.name}`;
  return layout(
    base,
    html`${header(base, context)}
      <p>
        The figures for the tax return, per tax year, from the same calculation as the downloadable
        <em>Realized gains summary</em> (UK or Germany rules): request it on the <a href="/">exports page</a> for every
        figure to ten decimal places and each coin.
      </p>
      <h2>What lacks a cost</h2>
      ${unknownCostsSection(view.unknownCosts)}
      <h2>What lacks proceeds</h2>
      ${lackingProceedsSection(view.lackingProceeds)}
      <h2 id="uk">United Kingdom (HMRC share matching, pounds)</h2>
      ${methodSection('uk', view.uk, view.now, view.figures?.uk)}
      <h2 id="de">Germany (private sales, euros)</h2>
      ${methodSection('de', view.de, view.now, view.figures?.de)}`,
    { style: YEAR_STYLE },
  );
}
