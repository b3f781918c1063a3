import { DE_FILING_ROUNDING_RULE, UK_FILING_ROUNDING_RULE } from '../accounting/gains/filing-rounding.ts';
import { FILING_CURRENCY, type RulesMethod } from '../accounting/gains/gains-method.ts';
import { gainsRowsHref, incomeRowsHref } from './figure-links.ts';
import type { FilingYear, SummaryRow } from './filing-figures.ts';
import type { MethodFigures } from './filing-figures.ts';
import { computingNote } from './filing-freshness.ts';
import { type Html, html } from './html.ts';
import { packForm } from './pack-form.ts';
import { header, layout, type PageContext } from './page-layout.ts';
import { plain } from './plain-words.ts';
import { coinAmountWords, moneyWords, taxYearWords, unknownWords } from './tax-year-words.ts';
import {
  type LackingProceeds,
  lackingProceedsSection,
  supplyPath,
  type UnknownCost,
  unknownCostsSection,
} from './unknown-costs.ts';
import { yearStatus } from './year-status.ts';
import { coinsTable, futuresTable, hasAmount, unknownPart, type YearLinks } from './year-tables.ts';

/**
 * A figure of the summary row, by its column: money to 2 decimals with its currency and commas
 * (the CSV keeps every decimal), a value the row leaves empty "unknown", never 0.
 */
function figure(
  row: SummaryRow,
  column: string,
  label: Html | string,
  options: { currency?: string; unknown?: Html | string; unknownAlone?: string; href?: string } = {},
): Html {
  const value = row[column] ?? '';
  const money = options.currency === undefined ? value : moneyWords(value, options.currency);
  // A sum of 0 beside sales of unknown value is no known 0: only the unknown is said.
  const onlyUnknown = value === '' || (options.unknown !== undefined && options.unknown !== '' && !hasAmount(value));
  const text = onlyUnknown ? (options.unknownAlone ?? 'unknown') : money;
  const shown = options.href ? html`<a href="${options.href}">${text}</a>` : text;
  return html`<tr data-field="${column}">
    <th>${label}</th>
    <td class="figure"><span class="amount">${shown}</span> ${onlyUnknown ? '' : (options.unknown ?? '')}</td>
  </tr>`;
}

/** "ETH 1.3, SOL 2": the coins whose rows carry a quantity in `column`. */
function perCoin(fy: FilingYear, column: string): string {
  return fy.coins
    .filter((r) => hasAmount(r[column]))
    .map((r) => coinAmountWords(r[column]!, r.coin!))
    .join(', ');
}

/** Proceeds of a review line, and the coins behind them on a line of their own (it may be long). */
function proceedsCell(fy: FilingYear, column: string, quantityColumn: string, currency: string): Html {
  const value = fy.filing[column] || fy.total[column] || '0';
  const coins = perCoin(fy, quantityColumn);
  return html`<td class="figure">
    <span class="amount">${moneyWords(value, currency)} received</span>
    ${coins ? html`<span class="coins">${coins}</span>` : ''}
  </td>`;
}

/** What the figures leave out or count at a guess: the counts that change them once known. */
function reviewTable(fy: FilingYear, currency: string, unpricedColumn: string): Html {
  const withdrawn = perCoin(fy, 'withdrawn_beyond_holdings');
  const sales = fy.method === 'uk' ? 'Disposals' : 'Sales';
  return html`<table class="review">
    <tbody>
      ${figure(fy.filing, unpricedColumn, `${sales} with no ${currency} price for the day (left out of the figures)`)}
      <tr data-field="unknown_cost_proceeds">
        <th>
          ${plain('Sold from coins whose cost nobody supplied', 'review:unknown-cost')} (left out of the figures until
          the cost is supplied: <code>ledgerline cost-basis import</code>)
        </th>
        ${proceedsCell(fy, 'unknown_cost_proceeds', 'unknown_cost_quantity', currency)}
      </tr>
      <tr data-field="beyond_holdings_proceeds">
        <th>
          ${plain('Sold beyond the coins held', 'review:disposal-exceeds-holdings')} (in the figures at a cost of 0, the
          most they can gain)
        </th>
        ${proceedsCell(fy, 'beyond_holdings_proceeds', 'beyond_holdings_quantity', currency)}
      </tr>
      ${
        withdrawn
          ? html`<tr data-field="withdrawn_beyond_holdings">
              <th>
                ${plain('Withdrawn beyond the coins held', 'review:withdrawal-exceeds-holdings')} (nothing realized)
              </th>
              <td class="figure"><span class="coins">${withdrawn}</span></td>
            </tr>`
          : ''
      }
    </tbody>
  </table>`;
}

function ukYear(fy: FilingYear, now: number, links: YearLinks): Html {
  const currency = FILING_CURRENCY.uk;
  const f = fy.filing;
  const rows = gainsRowsHref(links.accountId, 'uk', fy.year.label);
  const unknown = unknownPart(f.unpriced_disposals, ['disposal', 'disposals']);
  const unknownAlone = unknownWords(f.unpriced_disposals || '0', ['disposal', 'disposals']);
  const money = { currency, unknown, unknownAlone, href: rows };
  return html`<section
    class="filing-year"
    data-method="uk"
    data-year="${fy.year.label}"
    data-start="${fy.year.startMs}"
    data-end="${fy.year.endMs}"
  >
    <h3>${taxYearWords('uk', fy.year)}</h3>
    ${yearStatus(fy, now, currency)}
    <table class="filing">
      <caption>
        Capital Gains summary (SA108), cryptoassets, in whole pounds
      </caption>
      <tbody>
        ${figure(f, 'disposals', 'Number of disposals', { href: rows })}
        ${figure(f, 'proceeds', 'Disposal proceeds', money)}
        ${figure(f, 'allowable_costs', 'Allowable costs (including purchase price and the fees of the disposals)', money)}
        ${figure(f, 'gains', 'Gains in the year, before losses', money)}
        ${figure(f, 'losses', 'Losses in the year', money)}
      </tbody>
    </table>
    <p class="rule">Rounding: ${UK_FILING_ROUNDING_RULE}.</p>
    ${coinsTable(fy, currency, links)} ${reviewTable(fy, currency, 'unpriced_disposals')}
    ${futuresTable(
      fy,
      currency,
      html`Futures results: in none of the figures above. Whether they are capital gains or income is your call.`,
      links,
    )}
  </section>`;
}

/** The Freigrenze of private sales in words, from the year's total row (decideFreigrenze). */
function freigrenzeWords(total: SummaryRow, currency: string): Html {
  const limit = total.freigrenze ? moneyWords(total.freigrenze, currency) : '';
  if (total.below_freigrenze === 'yes') {
    return html`Below the Freigrenze of ${limit}: the private sales are not taxed this year.`;
  }
  if (total.below_freigrenze === 'no') {
    return html`Reaches the Freigrenze of ${limit}: all of it is taxable,
    ${moneyWords(total.taxable_amount || '0', currency)}.`;
  }
  if (total.complete !== 'true') return html`Not decided: the figures are part of the year only.`;
  const beyond = hasAmount(total.beyond_holdings_proceeds);
  return html`Not decided: whether the year reaches the Freigrenze of ${limit} depends on the cost of coins
  ${beyond ? 'sold beyond the coins held' : 'whose cost nobody supplied'}; decided once it is known.`;
}

function deYear(fy: FilingYear, now: number, links: YearLinks): Html {
  const currency = FILING_CURRENCY.de;
  const f = fy.filing;
  const taxable = gainsRowsHref(links.accountId, 'de', fy.year.label, { rule: 'taxable' });
  const unknown = unknownPart(f.unpriced_matches, ['sale', 'sales']);
  const unknownAlone = unknownWords(f.unpriced_matches || '0', ['sale', 'sales']);
  const money = { currency, unknown, unknownAlone, href: taxable };
  return html`<section
    class="filing-year"
    data-method="de"
    data-year="${fy.year.label}"
    data-start="${fy.year.startMs}"
    data-end="${fy.year.endMs}"
  >
    <h3>${taxYearWords('de', fy.year)}</h3>
    ${yearStatus(fy, now, currency)}
    <table class="filing">
      <caption>
        Anlage SO, in whole euros
      </caption>
      <tbody>
        ${figure(
          f,
          'taxable_proceeds',
          'Private sales held one year or less (§ 23 EStG): sale price (Veräußerungs\u00adpreis)',
          money,
        )}
        ${figure(f, 'taxable_cost', 'Their cost (Anschaffungs\u00adkosten)', money)}
        ${figure(f, 'taxable_selling_costs', 'Fees of the sales (Werbungs\u00adkosten)', money)}
        ${figure(f, 'taxable_gain', 'Gain or loss', money)}
        <tr data-field="below_freigrenze">
          <th>Freigrenze (§ 23 (3) EStG)</th>
          <td class="words">${freigrenzeWords(fy.total, currency)}</td>
        </tr>
        ${figure(
          f,
          'other_income',
          'Other income (§ 22 Nr. 3 EStG): rewards, interest (prizes of chance and copy-trading results apart)',
          { currency, href: incomeRowsHref(links.accountId, fy.year.label) },
        )}
      </tbody>
    </table>
    <p class="rule">Rounding: ${DE_FILING_ROUNDING_RULE}.</p>
    ${coinsTable(fy, currency, links)} ${reviewTable(fy, currency, 'unpriced_matches')}
    ${futuresTable(
      fy,
      currency,
      html`Futures results (Termingeschäfte, § 20 EStG, Anlage KAP): not private sales, in none of the figures above.`,
      links,
    )}
  </section>`;
}

/*
 * Laid out for 390 px to wide screens: the label column of the figures takes the room it needs, the
 * amounts never wrap inside themselves but the coins behind them do, a command is never broken
 * inside a word, and a table wider than the screen scrolls in its own box (never the page).
 */
const YEAR_STYLE = `.filing-year{border-top:2px solid #d8dee4;margin-top:1.5rem}
.figure{text-align:right}.figure .amount,.figure .unknown{white-space:nowrap}.figure .unknown{display:block;font-size:.85rem;color:#9a6700}
.figure .coins{display:block;font-size:.85rem;color:#57606a;overflow-wrap:anywhere}
table.filing,table.review{max-width:52rem}table.filing th,table.review th{width:62%}
td.words{min-width:10rem}caption{text-align:left;font-weight:600;padding:.25rem 0}
.filing-year code{word-break:normal;white-space:nowrap}
.status.state-complete .state-word{color:#067647}.status.state-partial .state-word,.status.state-undecided .state-word{color:#9a6700}
.rule{font-size:.85rem;color:#57606a}details.coins-of-year{margin:.5rem 0 1rem}
@media (max-width:640px){table.filing th,table.review th{width:55%;overflow-wrap:anywhere}td.words{min-width:0}th{overflow-wrap:break-word;hyphens:manual}.filing-year code{white-space:normal}}`;

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

function methodSection(
  method: RulesMethod,
  years: FilingYear[],
  now: number,
  links: YearLinks,
  figures?: MethodFigures,
): Html {
  if (years.length === 0) {
    return figures?.computing === true ? computingNote(method, figures) : html`<p>No records yet.</p>`;
  }
  // Newest year first: the one being prepared.
  return html`${[...years].reverse().map((fy) => (method === 'uk' ? ukYear(fy, now, links) : deYear(fy, now, links)))}`;
}

/**
 * The figures for the tax return, per tax year, of one account: the same rows as the filing
 * summaries' CSV (filing-figures.ts), in an accountant's words, each year marked complete or not,
 * with what lacks a cost and the counts that would change the figures.
 */
export function taxYearsPage(view: TaxYearsView, context: PageContext): Html {
  const base = `Tax years: ${view.account.name}`;
  const links = { accountId: view.account.id };
  return layout(
    base,
    html`${header(base, context)}
      <p>
        The figures for the tax return, per tax year, from the same calculation as the downloadable
        <em>Realized gains summary</em> (UK or Germany rules): request it on the <a href="/">exports page</a> for every
        figure exact to the last decimal. Amounts here are rounded to the penny or cent; each figure links to the rows
        behind it.
      </p>
      ${packForm(view.account.id, view.uk, view.de, context.csrf)}
      <h2>What lacks a cost</h2>
      <div class="scroll">${unknownCostsSection(view.unknownCosts, supplyPath(view.account.id))}</div>
      <h2>What lacks proceeds</h2>
      <div class="scroll">${lackingProceedsSection(view.lackingProceeds, supplyPath(view.account.id))}</div>
      <p>
        <a class="supplied-figures" href="${supplyPath(view.account.id)}#supplied">Supplied figures</a>: every cost and
        proceeds supplied, by whom and when, and withdrawing one.
      </p>
      <h2 id="uk">United Kingdom (HMRC share matching, pounds)</h2>
      ${methodSection('uk', view.uk, view.now, links, view.figures?.uk)}
      <h2 id="de">Germany (private sales, euros)</h2>
      ${methodSection('de', view.de, view.now, links, view.figures?.de)}`,
    { style: YEAR_STYLE },
  );
}
