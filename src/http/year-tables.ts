import { filterWords, futuresRowsHref, type GainsFilter, gainsRowsHref } from './figure-links.ts';
import type { FilingYear, SummaryRow } from './filing-figures.ts';
import { type Html, html } from './html.ts';
import { coinAmountWords, moneyWords, unknownWords } from './tax-year-words.ts';

export const hasAmount = (value: string | undefined) =>
  value !== undefined && value !== '' && !/^-?0(\.0*)?$/.test(value);

/** Where a year's figures link to (figure-links.ts). */
export interface YearLinks {
  readonly accountId: string;
}

/** A count of the summary row that makes a figure unknown in part: "unknown (3 sales)" beside it. */
export function unknownPart(count: string | undefined, what: readonly [string, string]): Html | string {
  return count !== undefined && count !== '' && count !== '0'
    ? html`<span class="unknown">and ${unknownWords(count, what)}</span>`
    : '';
}

/** A futures amount in the summary's currency: unknown (N records) where no rate values them, never 0. */
function futuresValue(r: SummaryRow, currency: string): Html | string {
  const value = r.futures_net_value ?? '';
  const unpriced = r.unpriced_futures_records ?? '';
  const what = ['record without a rate', 'records without a rate'] as const;
  // No record valued (an empty or zero sum beside unpriced records): no known 0, only unknown.
  if (value === '' || (!hasAmount(value) && hasAmount(unpriced))) return unknownWords(unpriced || 'all', what);
  return html`${moneyWords(value, currency)} ${unknownPart(unpriced, what)}`;
}

export function futuresTable(fy: FilingYear, currency: string, heading: Html, links: YearLinks): Html {
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
          </tr>
        </thead>
        <tbody>
          ${fy.futures.map((r) => {
            const coin = r.coin!;
            const amount = (column: string) => coinAmountWords(r[column] || '0', coin);
            return html`<tr data-coin="${coin}">
              <td><a href="${futuresRowsHref(links.accountId, fy.method, fy.year.label, coin)}">${coin}</a></td>
              <td data-field="realized_pnl" class="figure">${amount('realized_pnl')}</td>
              <td data-field="fees" class="figure">${amount('fees')}</td>
              <td data-field="funding" class="figure">${amount('funding')}</td>
              <td data-field="futures_net" class="figure">${amount('futures_net')}</td>
              <td data-field="futures_net_value" class="figure">${futuresValue(r, currency)}</td>
            </tr>`;
          })}
        </tbody>
      </table>
    </div>`;
}

/**
 * The year's figures per coin, each linked to its gains rows; then the rows by rule (uk) or by
 * holding period (de). What each sum is made of, one click away.
 */
export function coinsTable(fy: FilingYear, currency: string, links: YearLinks): Html {
  if (fy.coins.length === 0) return html`<p>No sales this year.</p>`;
  const uk = fy.method === 'uk';
  const href = (coin?: string, rule?: GainsFilter) =>
    gainsRowsHref(links.accountId, fy.method, fy.year.label, { coin, rule });
  const rules = (uk ? ['same-day', '30-day', 's104'] : ['taxable', 'tax-free']) as GainsFilter[];
  const unpricedColumn = uk ? 'unpriced_disposals' : 'unpriced_matches';
  return html`<details class="coins-of-year">
    <summary>Per coin, and the rows behind each figure</summary>
    <p>
      The rows: <a href="${href()}">all</a>${rules.map(
        (rule) => html` · <a href="${href(undefined, rule)}">${filterWords(fy.method, rule)}</a>`,
      )}
    </p>
    <div class="scroll">
      <table class="coins">
        <thead>
          <tr>
            <th>Coin</th>
            <th>${uk ? 'Disposals' : 'Sales (parts matched)'}</th>
            <th>${uk ? 'Proceeds' : 'Taxable proceeds'}</th>
            <th>${uk ? 'Net gain' : 'Taxable gain'}</th>
            ${uk ? '' : html`<th>Tax-free gain</th>`}
          </tr>
        </thead>
        <tbody>
          ${fy.coins.map((r) => {
            const coin = r.coin!;
            const what = uk ? (['disposal', 'disposals'] as const) : (['sale', 'sales'] as const);
            const unpriced = r[unpricedColumn] ?? '0';
            // Every sale of the coin unpriced: its sums are no known 0, only unknown.
            const none = unpriced !== '0' && unpriced === (uk ? r.disposals : r.matches);
            const money = (column: string) =>
              html`<td class="figure" data-field="${column}">
                ${
                  none
                    ? html`<span class="amount">${unknownWords(unpriced, what)}</span>`
                    : html`<span class="amount">${moneyWords(r[column] || '0', currency)}</span>
                        ${unknownPart(unpriced, what)}`
                }
              </td>`;
            return html`<tr data-coin="${coin}">
              <td><a href="${href(coin)}">${coin}</a></td>
              <td class="figure">${uk ? r.disposals : r.matches}</td>
              ${money(uk ? 'proceeds' : 'taxable_proceeds')} ${money(uk ? 'net_gain' : 'taxable_gain')}
              ${uk ? '' : money('tax_free_gain')}
            </tr>`;
          })}
        </tbody>
      </table>
    </div>
  </details>`;
}
