import { Decimal } from 'decimal.js';

import type { RulesMethod } from '../../accounting/gains/gains-method.ts';
import type { ExportManifest } from '../manifest.ts';
import { ANLAGE_KAP_LINES, formLayout } from './pack-forms.ts';
import type { SummaryCells, YearSummary } from './pack-summary.ts';
import type { OpenItems, SuppliedFigure } from './pack-supplied.ts';

/** One file of the pack as its manifest describes it. */
export interface PackSource {
  readonly file: string;
  readonly manifest: ExportManifest;
}

export interface PackView {
  readonly account: { id: string; name: string };
  readonly method: RulesMethod;
  readonly taxYear: string;
  /** The year's dates as the files' period states them (local dates of the method's zone). */
  readonly from: string;
  readonly to: string;
  readonly tz: string;
  readonly summary: YearSummary;
  readonly summarySource: PackSource;
  readonly gainsSource: PackSource;
  readonly open: OpenItems;
  readonly supplied: readonly SuppliedFigure[];
  readonly generatedAt: string;
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const esc = (value: unknown): string => String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/**
 * A table; the columns in `keep` never wrap (figures, box numbers, labels a reader matches to the
 * form: pdftotext and the eye read them on one line), the others wrap where they must.
 */
function table(
  headers: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  keep: readonly number[] = [],
): string {
  if (rows.length === 0) return '';
  const cls = (i: number) => (keep.includes(i) ? ' class="keep"' : '');
  return `<table><thead><tr>${headers.map((h, i) => `<th${cls(i)}>${esc(h)}</th>`).join('')}</tr></thead>
<tbody>${rows.map((r) => `<tr>${r.map((c, i) => `<td${cls(i)}>${esc(c)}</td>`).join('')}</tr>`).join('\n')}</tbody></table>`;
}

const present = (value: string | undefined): string => (value === undefined || value === '' ? '—' : value);

/** The pack's two files, referred to as S1 and S2 beside each figure (the sources table names them, with their hashes). */
const SUMMARY_REF = 'S1';
const GAINS_REF = 'S2';

/** The source of a figure: the file (S1, S2), its row (`level`) and column. */
const sourceOf = (ref: string, level: string, column: string) => `${ref} · ${level} · ${column}`;

function formSection(view: PackView): string {
  const layout = formLayout(view.method, view.taxYear);
  const rowOf = (level: string): SummaryCells => (level === 'total' ? view.summary.total : view.summary.filing);
  const currency = present(view.summary.filing.currency);
  const rows = layout.fields.map((f) => [
    f.number === '' ? '—' : f.number,
    f.label,
    present(rowOf(f.level)[f.column]),
    f.column === 'disposals' || f.column === 'below_freigrenze' ? '' : currency,
    sourceOf(SUMMARY_REF, f.level, f.column),
  ]);
  const unpricedColumn = view.method === 'uk' ? 'unpriced_disposals' : 'unpriced_matches';
  const unpriced = Number(view.summary.filing[unpricedColumn] ?? '0');
  const note = view.summary.filing.note ?? '';
  return `<h2>${esc(layout.title)}</h2>
${table([view.method === 'uk' ? 'Box' : 'Zeile', 'Label', 'Figure', 'Currency', 'Source (file · row · column)'], rows, [0, 1, 2, 3, 4])}
<p class="small">${esc(layout.source)}</p>
${unpriced > 0 ? `<p class="warn">Not in these figures: unknown (${unpriced} ${unpriced === 1 ? 'sale' : 'sales'}), see “Still open” below.</p>` : ''}
${note === '' ? '' : `<p class="small">The summary’s note: ${esc(note)}</p>`}
${view.method === 'de' && (view.summary.total.note ?? '') !== '' ? `<p class="small">Freigrenze: ${esc(view.summary.total.note)}</p>` : ''}`;
}

function futuresSection(view: PackView): string {
  const rows = view.summary.futures;
  if (view.method === 'uk') {
    if (rows.length === 0) return '<h2>Futures results</h2><p>No futures results in this tax year.</p>';
    return `<h2>Futures results (in no SA108 box)</h2>
<p class="small">Whether futures results are capital gains (TCGA 1992 s143) or income is the accountant’s decision: they are stated here and in the summary file, in no box above.</p>
${table(
  ['Margin coin', 'Net (coin)', 'Net (GBP)', 'Unpriced records', 'Source'],
  rows.map((r) => [
    r.coin ?? '',
    present(r.futures_net),
    present(r.futures_net_value),
    present(r.unpriced_futures_records),
    sourceOf(SUMMARY_REF, 'futures', 'futures_net_value'),
  ]),
  [0, 1, 2, 3],
)}`;
  }
  const title = '<h2>Anlage KAP: Termingeschäfte (§ 20 Abs. 2 Satz 1 Nr. 3 EStG)</h2>';
  if (rows.length === 0) return `${title}<p>No futures results in this year.</p>`;
  const lineOf = (value: string | undefined) => {
    if (value === undefined || value === '') return '— (unpriced)';
    const net = new Decimal(value);
    return net.isNegative()
      ? `${ANLAGE_KAP_LINES.futuresLosses} (loss)`
      : `${ANLAGE_KAP_LINES.income} and ${ANLAGE_KAP_LINES.futuresGains}`;
  };
  const valued = rows.filter((r) => (r.futures_net_value ?? '') !== '');
  const sum = valued.reduce((s, r) => s.plus(r.futures_net_value!), new Decimal(0));
  return `${title}
<p class="small">Capital income from a foreign exchange, not taxed at source: a year’s gain per margin coin in Zeile ${ANLAGE_KAP_LINES.income} (ausländische Kapitalerträge) and Zeile ${ANLAGE_KAP_LINES.futuresGains} (darin enthaltene Gewinne aus Termingeschäften), a loss in Zeile ${ANLAGE_KAP_LINES.futuresLosses} (Verluste aus Termingeschäften). Kept apart from Anlage SO; exact euros, the form takes whole ones.</p>
${table(
  ['Zeile', 'Margin coin', 'Net (coin)', 'Net (EUR)', 'Unpriced records', 'Source'],
  rows.map((r) => [
    lineOf(r.futures_net_value),
    r.coin ?? '',
    present(r.futures_net),
    present(r.futures_net_value),
    present(r.unpriced_futures_records),
    sourceOf(SUMMARY_REF, 'futures', 'futures_net_value'),
  ]),
  [0, 1, 2, 3, 4],
)}
<p class="small">Sum of the rows above in euros: ${esc(sum.toFixed())}${valued.length < rows.length ? ` (${rows.length - valued.length} rows unpriced: not in it)` : ''}.</p>`;
}

function coinsSection(view: PackView): string {
  const rows = view.summary.coins;
  if (rows.length === 0) return '';
  const uk = view.method === 'uk';
  const headers = uk
    ? ['Coin', 'Disposals', 'Proceeds', 'Allowable costs', 'Net gain', 'Unknown-cost quantity']
    : ['Coin', 'Sales', 'Taxable proceeds', 'Taxable cost', 'Taxable gain', 'Tax-free gain', 'Unknown-cost quantity'];
  const cells = (r: SummaryCells) =>
    uk
      ? [r.coin, r.disposals, r.proceeds, r.allowable_costs, r.net_gain, r.unknown_cost_quantity]
      : [
          r.coin,
          r.matches,
          r.taxable_proceeds,
          r.taxable_cost,
          r.taxable_gain,
          r.tax_free_gain,
          r.unknown_cost_quantity,
        ];
  return `<h2>Per coin (exact, ${esc(present(view.summary.total.currency))})</h2>
${table(
  headers,
  rows.map((r) => cells(r).map(present)),
  headers.map((_, i) => i),
)}`;
}

function openSection(view: PackView): string {
  const m = view.gainsSource.manifest;
  const review = Object.entries(m.review.values ?? {});
  const amounts = Object.entries(m.reviewAmounts ?? {}).flatMap(([flag, coins]) =>
    Object.entries(coins).map(([coin, a]) => [
      flag,
      coin,
      String(a.rows),
      a.quantity,
      a.proceeds,
      String(a.proceedsMissing),
    ]),
  );
  const flags =
    review.length === 0
      ? '<p>No row of this year’s realized-gains file is marked for review.</p>'
      : `${table(
          ['Review flag', 'Rows'],
          review.map(([flag, count]) => [flag, String(count)]),
          [0, 1],
        )}${table(['Review flag', 'Coin', 'Rows', 'Quantity', 'Proceeds', 'Rows without proceeds'], amounts, [0, 1, 2, 3, 4, 5])}`;
  const costs =
    view.open.unknownCosts.length === 0
      ? `<p>None: the costs supplied in ${esc(present(view.summary.total.currency))} cover every arrival of unknown cost (deposits, P2P buys, futures transfers in with no spot side, coins back from a strategy, Earn or a lock beyond what went away).${
          (m.review.values['unknown-cost'] ?? 0) > 0
            ? ' The rows of unknown cost above are parts the walk matched to no supplied cost: their rows in S2 have no allowable cost.'
            : ''
        }</p>`
      : table(
          ['Coin', 'Arrivals lacking a cost', 'Quantity lacking a cost'],
          view.open.unknownCosts.map((u) => [u.coin, String(u.deposits), u.lacking]),
          [0, 1, 2],
        );
  const proceeds =
    view.open.lackingProceeds.length === 0
      ? `<p>Every P2P sale has supplied proceeds in ${esc(present(view.summary.total.currency))}.</p>`
      : table(
          ['Sale', 'Sold at (UTC)', 'Coin', 'Quantity'],
          view.open.lackingProceeds.map((p) => [p.recordId, p.soldAt, p.coin, p.quantity]),
          [0, 1, 2, 3],
        );
  return `<h2>Still open</h2>
<h3>Rows marked for review in this tax year (${GAINS_REF}, its manifest’s review counts)</h3>${flags}
<h3>Deposits and P2P buys beyond the supplied costs (whole account, by quantity)</h3>${costs}
<h3>P2P sales without proceeds (whole account)</h3>${proceeds}`;
}

function suppliedSection(view: PackView): string {
  const rows = view.supplied.map((s) => [
    s.kind,
    s.subject,
    s.quantity,
    `${s.amount} ${s.currency}`,
    s.at.replace('T', ' ').replace(':00Z', 'Z'),
    s.suppliedBy === '' ? 'not recorded' : s.suppliedBy,
    `${s.source}; ${s.fileName}, imported ${s.importedAt.replace('T', ' ')}`,
  ]);
  return `<h2>Figures supplied, and by whom</h2>
${
  rows.length === 0
    ? '<p>No figure was supplied: every figure comes from the exchange’s records and market prices.</p>'
    : `<div class="small">${table(
        ['Kind', 'Coin or sale', 'Quantity', 'Amount', 'Acquired / sold at (UTC)', 'Supplied by', 'From'],
        rows,
        [0, 1, 2, 3, 4],
      )}</div>`
}`;
}

function sourcesSection(view: PackView): string {
  const entry = (ref: string, s: PackSource) => `<div class="source"><div><b>${ref}</b> ${esc(s.file)}</div>
<div>sha256 <code>${esc(s.manifest.sha256)}</code></div>
<div class="small">${esc(s.manifest.title)} · ${esc(s.manifest.rowCount)} rows · ${esc(s.manifest.parameters.from)} to ${esc(s.manifest.parameters.to)} (${esc(s.manifest.parameters.tz)}) · ${s.manifest.partial ? 'partial: the data does not cover the whole period (its manifest lists the gaps)' : 'the data covers the whole period'} · written ${esc(s.manifest.generatedAt)}</div></div>`;
  return `<h2>Sources</h2>
<p class="small">Both files are in this pack beside their manifests; recompute a file’s sha256 to prove it is the one these figures were read from.</p>
${entry(SUMMARY_REF, view.summarySource)}${entry(GAINS_REF, view.gainsSource)}`;
}

const STYLE = `@page { size: A4; margin: 14mm 12mm; }
body { font-family: "DejaVu Sans", Arial, sans-serif; font-size: 9pt; color: #111; }
h1 { font-size: 14pt; margin: 0 0 4pt; } h2 { font-size: 11pt; margin: 12pt 0 4pt; border-bottom: 1px solid #999; }
h3 { font-size: 9.5pt; margin: 8pt 0 3pt; }
table { border-collapse: collapse; width: 100%; margin: 3pt 0; page-break-inside: auto; }
th, td { border: 1px solid #bbb; padding: 2pt 4pt; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
th { background: #eee; } tr { page-break-inside: avoid; }
.keep { white-space: nowrap; overflow-wrap: normal; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: 7.5pt; white-space: nowrap; }
.small { font-size: 7.5pt; color: #333; } .warn { color: #8a4b00; font-weight: bold; }
.source { margin: 4pt 0; }`;

/** The pack's printable summary: laid out like the form it feeds, every figure with its source. */
export function packHtml(view: PackView): string {
  const m = view.summarySource.manifest;
  const complete = view.summary.filing.complete === 'true';
  const status = complete
    ? m.partial
      ? 'The whole tax year, but the data does not cover all of it: the figures may be short (see Sources).'
      : 'The whole tax year, and the data covers all of it.'
    : 'Part of the tax year only: not the year’s figures.';
  const methodWords =
    view.method === 'uk' ? 'UK rules (HMRC share matching)' : 'German rules (private Veräußerungsgeschäfte, FIFO)';
  return `<!doctype html><html lang="${view.method === 'uk' ? 'en-GB' : 'de'}"><head><meta charset="utf-8">
<title>Tax-year pack ${esc(view.account.name)} ${esc(view.taxYear)} ${esc(view.method)}</title><style>${STYLE}</style></head><body>
<h1>Tax-year pack: ${esc(view.account.name)}, tax year ${esc(view.taxYear)}</h1>
<p>${esc(methodWords)}, rules version ${esc(m.parameters.rulesVersion ?? '')}. Period ${esc(view.from)} to ${esc(view.to)} (${esc(view.tz)}). Account ${esc(view.account.id)}. Printed ${esc(view.generatedAt)}.</p>
<p class="${complete && !m.partial ? '' : 'warn'}">${esc(status)}</p>
${sourcesSection(view)}
${formSection(view)}
${futuresSection(view)}
${coinsSection(view)}
${openSection(view)}
${suppliedSection(view)}
</body></html>`;
}
