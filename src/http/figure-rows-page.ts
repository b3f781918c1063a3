import { Readable } from 'node:stream';

import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';

import { FILING_CURRENCY, type RulesMethod } from '../accounting/gains/gains-method.ts';
import type { TaxYear } from '../accounting/gains/tax-years.ts';
import { exchangeRecords, recordsTable } from './exchange-records.ts';
import type { SummaryRow } from './filing-figures.ts';
import { type Html, html } from './html.ts';
import { header, layout, type PageContext } from './page-layout.ts';
import { plain } from './plain-words.ts';
import { moneyWords, taxYearWords } from './tax-year-words.ts';

/** Rows per page; the records of this many rows are read in one query per history. */
export const ROWS_PER_PAGE = 100;
const CHUNK = 25;

/** The review flags of a gains or income row, in words (the file's flag in the tooltip). */
const FLAG_WORDS: Readonly<Record<string, string>> = {
  'review:unknown-cost': 'cost nobody supplied',
  'review:unknown-proceeds': 'proceeds not supplied',
  'review:unpriced': 'no price for the day',
  'review:disposal-exceeds-holdings': 'sold beyond the coins held',
  'review:withdrawal-exceeds-holdings': 'withdrawn beyond the coins held',
  'review:compensate-lot': 'bought by a record to review',
};
const flagWords = (flag: string) => (flag ? plain(FLAG_WORDS[flag] ?? 'to review', flag) : '');

/** A page of rows: its columns, and how a row shows and names its exchange records. */
export interface RowsPageSpec {
  readonly method: RulesMethod;
  readonly year: TaxYear;
  readonly title: string;
  /** What the rows are, and where they come from, above them. */
  readonly intro: Html;
  readonly columns: readonly string[];
  readonly cells: (row: SummaryRow) => ReadonlyArray<Html | string>;
  /** The record refs of a row (text-safe-ids.ts): read back and listed under it. */
  readonly refs: (row: SummaryRow) => string[];
  readonly page: number;
  /** The link to another page of the same rows. */
  readonly pageHref: (page: number) => string;
  readonly backHref: string;
}

const money = (method: RulesMethod, value: string | undefined) =>
  value === undefined || value === ''
    ? html`<span class="unknown">unknown</span>`
    : moneyWords(value, FILING_CURRENCY[method]);

/** The cells of a UK gains row (realized-gains --method uk). */
export const ukGainCells = (r: SummaryRow): ReadonlyArray<Html | string> => [
  r.disposed_on!,
  r.coin!,
  r.rule === 's104' ? plain('pool', 's104') : r.rule!,
  r.quantity!,
  money('uk', r.proceeds),
  money('uk', r.allowable_cost),
  money('uk', r.gain),
  flagWords(r.flag ?? ''),
];
export const UK_GAIN_COLUMNS = [
  'Disposed on',
  'Coin',
  'Rule',
  'Quantity',
  'Proceeds',
  'Allowable cost',
  'Gain',
  'Review',
];

/** The cells of a German gains row (realized-gains --method de). */
export const deGainCells = (r: SummaryRow): ReadonlyArray<Html | string> => [
  r.disposed_at!.slice(0, 19).replace('T', ' '),
  r.coin!,
  r.quantity!,
  money('de', r.proceeds),
  money('de', r.cost_basis),
  money('de', r.gain),
  r.acquired_at ? r.acquired_at.slice(0, 10) : '—',
  r.days_held || '—',
  r.taxable === 'yes' ? 'taxable' : 'tax-free',
  flagWords(r.flag ?? ''),
];
export const DE_GAIN_COLUMNS = [
  'Sold at',
  'Coin',
  'Quantity',
  'Proceeds',
  'Cost',
  'Gain',
  'Bought on',
  'Days held',
  'Held',
  'Review',
];

/** The cells of an income receipt (the income report). */
export const incomeCells =
  (method: RulesMethod) =>
  (r: SummaryRow): ReadonlyArray<Html | string> => [
    r.received_at!.slice(0, 19).replace('T', ' '),
    r.coin!,
    r.quantity!,
    money(method, r.value),
    r.spot_tax_type!,
    flagWords(r.flag ?? ''),
  ];
export const INCOME_COLUMNS = ['Received at', 'Coin', 'Quantity', 'Value', 'Type', 'Review'];

const ROWS_STYLE = `.rows .figure{text-align:right;white-space:nowrap}.rows details{margin:0}
table.records{margin:.25rem 0 .5rem;font-size:.85rem}table.records th,table.records td{font-size:.85rem}
code.id{word-break:normal;white-space:nowrap}.unknown{color:#9a6700}.pager a{margin-right:1rem}`;

/** The page around the rows, cut where the rows stream in. */
function frame(spec: RowsPageSpec, context: PageContext): [string, string] {
  const marker = '<!--rows-->';
  const title = `${spec.title}, ${taxYearWords(spec.method, spec.year)}`;
  const page = layout(
    spec.title,
    html`${header(spec.title, context)}
      <p><a href="${spec.backHref}">Back to the tax years</a></p>
      <h2>${taxYearWords(spec.method, spec.year)}</h2>
      ${spec.intro}
      <div class="scroll rows" data-title="${title}"><!--rows--></div>`,
    { style: ROWS_STYLE },
  ).text;
  const at = page.indexOf(marker);
  return [page.slice(0, at), page.slice(at + marker.length)];
}

function rowHtml(spec: RowsPageSpec, row: SummaryRow, records: Html): Html {
  const refs = spec.refs(row);
  return html`<tr>
      ${spec.cells(row).map((cell) => html`<td>${cell}</td>`)}
    </tr>
    <tr class="records-row">
      <td colspan="${spec.columns.length}">
        <details>
          <summary>${refs.length} exchange record${refs.length === 1 ? '' : 's'}</summary>
          ${records}
        </details>
      </td>
    </tr>`;
}

/**
 * The rows page, streamed: the page's head at once, then the rows in chunks as the report walks
 * (each chunk's exchange records read in one query per history), then the pager. A page is
 * `ROWS_PER_PAGE` rows; the walk stops one row after it (so the pager knows a next page exists).
 */
export function streamRowsPage(
  spec: RowsPageSpec,
  context: PageContext,
  rows: AsyncIterable<SummaryRow>,
  lookup: { pool: pg.Pool; accountId: string; log?: FastifyBaseLogger | undefined },
): Readable {
  const [head, tail] = frame(spec, context);
  const skip = (spec.page - 1) * ROWS_PER_PAGE;
  async function* render(): AsyncGenerator<string> {
    yield head;
    // The table stays open while its rows stream in: closed after the last (or the error line).
    yield `<table>${
      html`<thead>
        <tr>
          ${spec.columns.map((c) => html`<th>${c}</th>`)}
        </tr>
      </thead>`.text
    }<tbody>`;
    let seen = 0;
    let shown = 0;
    let more = false;
    let chunk: SummaryRow[] = [];
    const flush = async () => {
      const refs = chunk.flatMap((r) => spec.refs(r));
      const found = await exchangeRecords(lookup.pool, lookup.accountId, refs);
      const text = chunk.map((r) => rowHtml(spec, r, recordsTable(spec.method, spec.refs(r), found)).text).join('');
      chunk = [];
      return text;
    };
    try {
      for await (const row of rows) {
        seen++;
        if (seen <= skip) continue;
        if (shown === ROWS_PER_PAGE) {
          more = true;
          break;
        }
        shown++;
        chunk.push(row);
        if (chunk.length === CHUNK) yield await flush();
      }
      if (chunk.length > 0) yield await flush();
      yield `</tbody></table>`;
      const from = shown === 0 ? 0 : skip + 1;
      yield html`<p class="pager" data-rows="${shown}">
        ${shown === 0 ? 'No rows.' : `Rows ${from} to ${skip + shown}.`}
        ${spec.page > 1 ? html`<a href="${spec.pageHref(spec.page - 1)}" rel="prev">Previous page</a>` : ''}
        ${more ? html`<a href="${spec.pageHref(spec.page + 1)}" rel="next">Next page</a>` : ''}
      </p>`.text;
    } catch (error) {
      lookup.log?.error({ err: error }, 'figure rows failed');
      yield `</tbody></table><p class="error" role="alert">The rows could not be computed: try again in a minute.</p>`;
    }
    yield tail;
  }
  return Readable.from(render());
}
