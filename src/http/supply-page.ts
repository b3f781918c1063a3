import { DateTime } from 'luxon';

import { AWAY_DECISION_COLUMNS } from '../accounting/cost-basis/away-decision-import.ts';
import { COST_BASIS_COLUMNS } from '../accounting/cost-basis/cost-basis-import.ts';
import { SUPPLIED_LIMITS } from '../accounting/cost-basis/supplied-csv.ts';
import type { CoinsAwayMove } from '../accounting/gains/coins-away.ts';
import { FILING_CURRENCY, type RulesMethod } from '../accounting/gains/gains-method.ts';
import { ARRIVAL_KINDS } from '../accounting/gains/unknown-cost-arrivals.ts';
import { PROCEEDS_COLUMNS } from '../accounting/proceeds/proceeds-import.ts';
import { coinsAwaySection } from './coins-away-section.ts';
import { type Html, html } from './html.ts';
import { csrfField, header, layout, type PageContext } from './page-layout.ts';
import { SUPPLIED_KINDS, type SuppliedImport, type SuppliedKind } from './supplied-list.ts';
import {
  type LackingDeposit,
  type LackingProceeds,
  supplyPath,
  type UnknownCost,
  unknownCostsSection,
} from './unknown-costs.ts';

const METHODS: readonly RulesMethod[] = ['uk', 'de'];

/** How many deposits and sales the page lists with a form each; the rest are counted (and filtered by coin). */
export const LISTED = 50;

export interface SupplyView {
  account: { id: string; name: string };
  unknownCosts: UnknownCost[];
  /** The arrivals lacking a cost under some method (of the coin asked for, if any), in the walk's order. */
  deposits: LackingDeposit[];
  sales: LackingProceeds[];
  imports: SuppliedImport[];
  /** Moves away not back after `awayDays` days (coins-away.ts), each with its decision. */
  away: CoinsAwayMove[];
  awayDays: number;
  coin?: string | undefined;
  /** What the last action did, in words (after its redirect). */
  notice?: string | undefined;
  /** The last action's errors: one per bad row, or one. */
  errors?: readonly string[] | undefined;
}

const utc = (ms: number) => DateTime.fromMillis(ms, { zone: 'UTC' }).toFormat("yyyy-LL-dd HH:mm 'UTC'");
const utcDay = (ms: number) => DateTime.fromMillis(ms, { zone: 'UTC' }).toISODate()!;

const SOURCE_HINT = 'where it comes from: a-z, 0-9, . _ - (e.g. bank-statement)';

function sourceAndNote(): Html {
  return html`<label
      >Source
      <input name="source" required maxlength="40" pattern="[A-Za-z0-9][A-Za-z0-9._\\-]{0,39}" title="${SOURCE_HINT}"
    /></label>
    <label>Note <input name="note" maxlength="${SUPPLIED_LIMITS.cellBytes}" /></label>`;
}

const lackingWords = (lacking: Record<RulesMethod, string>, coin: string) =>
  METHODS.map(
    (m) => `${m} (${FILING_CURRENCY[m]}): ${lacking[m] === '0' ? 'has a cost' : `${lacking[m]} ${coin}`}`,
  ).join('; ');

/** Why the walk takes the coins in of unknown cost, in words ("back from Release beyond what went away"). */
const arrivalWords = (d: LackingDeposit) =>
  d.kind === 'own-move-back' ? `back from ${d.taxType} beyond what went away` : ARRIVAL_KINDS[d.kind];

/** One coin moved in, with the form that supplies its cost in the currencies it lacks one in. */
function depositForm(d: LackingDeposit, accountId: string, csrf: string): Html {
  return html`<form class="entry" method="post" action="${supplyPath(accountId)}/cost" data-deposit="${d.recordId}">
    ${csrfField(csrf)}<input type="hidden" name="deposit" value="${d.recordId}" />
    <p>
      <strong>${d.quantity} ${d.coin}</strong> moved in ${utc(d.atMs)}: ${arrivalWords(d)} (<code>${d.recordId}</code>).
      Lacking a cost: ${lackingWords(d.lacking, d.coin)}.
    </p>
    <label
      >Bought on <input type="date" name="acquired_on" value="${utcDay(d.atMs)}" max="${utcDay(d.atMs)}" required
    /></label>
    ${METHODS.filter((m) => d.lacking[m] !== '0').map(
      (m) =>
        html`<label
          >Cost in ${FILING_CURRENCY[m]}
          <input name="cost_${FILING_CURRENCY[m].toLowerCase()}" inputmode="decimal" pattern="\\d+(\\.\\d+)?" size="12"
        /></label>`,
    )}
    ${sourceAndNote()}
    <button type="submit">Supply the cost</button>
  </form>`;
}

/** One P2P sale, with the form that supplies its proceeds in the currencies it lacks them in. */
function saleForm(s: LackingProceeds, accountId: string, csrf: string): Html {
  const supplied = s.suppliedIn.split(',').filter(Boolean);
  return html`<form class="entry" method="post" action="${supplyPath(accountId)}/sale" data-sale="${s.recordId}">
    ${csrfField(csrf)}<input type="hidden" name="sale" value="${s.recordId}" />
    <p>
      <strong>${s.quantity} ${s.coin}</strong> sold ${s.soldAt.replace('T', ' ').replace('Z', ' UTC')}
      (<code>${s.recordId}</code>). Proceeds supplied in: ${supplied.length === 0 ? 'none' : supplied.join(', ')}.
    </p>
    ${METHODS.filter((m) => !supplied.includes(FILING_CURRENCY[m])).map(
      (m) =>
        html`<label
          >Proceeds in ${FILING_CURRENCY[m]}
          <input
            name="proceeds_${FILING_CURRENCY[m].toLowerCase()}"
            inputmode="decimal"
            pattern="\\d+(\\.\\d+)?"
            size="12"
        /></label>`,
    )}
    ${sourceAndNote()}
    <button type="submit">Supply the proceeds</button>
  </form>`;
}

const COLUMNS: Record<SuppliedKind, readonly string[]> = {
  'cost-basis': COST_BASIS_COLUMNS,
  proceeds: PROCEEDS_COLUMNS,
  'away-decision': AWAY_DECISION_COLUMNS,
};

function uploadForm(kind: SuppliedKind, accountId: string, csrf: string): Html {
  const columns = COLUMNS[kind];
  const currency =
    kind === 'away-decision'
      ? 'decision held or lost, decided_at a date or a date-time with an offset'
      : 'currency GBP (UK figures) or EUR (German figures)';
  return html`<form
    class="upload"
    method="post"
    action="${supplyPath(accountId)}/${kind}-file"
    enctype="multipart/form-data"
    data-kind="${kind}"
  >
    ${csrfField(csrf)}
    <fieldset>
      <legend>${SUPPLIED_KINDS[kind].words}: a CSV file</legend>
      <p>
        Columns: <code>${columns.join(', ')}</code> (<code>note</code> optional), as for
        <code>ledgerline ${kind} import</code>; ${currency}. At most 16 MiB, a cell at most ${SUPPLIED_LIMITS.cellBytes}
        bytes. Every row is checked first: any bad row and nothing is written.
      </p>
      <label>File <input type="file" name="file" accept=".csv,text/csv" required /></label>
      <button type="submit">Upload</button>
    </fieldset>
  </form>`;
}

function importState(i: SuppliedImport, accountId: string, csrf: string): Html {
  if (i.withdrawnAt !== null) {
    return html`<span class="withdrawn">Withdrawn ${i.withdrawnAt} by ${i.withdrawnBy}: ${i.withdrawnReason}</span>`;
  }
  return html`<form class="withdraw" method="post" action="${supplyPath(accountId)}/withdraw">
    ${csrfField(csrf)}<input type="hidden" name="kind" value="${i.kind}" /><input
      type="hidden"
      name="import"
      value="${i.id}"
    />
    <label>Reason <input name="reason" required minlength="3" maxlength="500" /></label>
    <button type="submit">Withdraw</button>
  </form>`;
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

const WHAT: Record<SuppliedKind, readonly [string, string]> = {
  'cost-basis': ['lot', 'lots'],
  proceeds: ['proceeds figure', 'proceeds figures'],
  'away-decision': ['decision on coins away', 'decisions on coins away'],
};

/** "1 lot from 1 row, in EUR, source kraken-statement": what an import added (a row a live import held is not added twice). */
function whatWords(i: SuppliedImport): string {
  const [one, many] = WHAT[i.kind];
  const currencies = i.currencies ? `, in ${i.currencies}` : '';
  return `${count(i.added, one, many)} from ${count(i.rows, 'row', 'rows')}${currencies}, source ${i.sources}`;
}

/** Every supplied figure's import: what, from which file (its SHA-256), who, when; each withdrawable. */
export function suppliedFiguresSection(imports: readonly SuppliedImport[], accountId: string, csrf: string): Html {
  if (imports.length === 0) return html`<p>No figures supplied yet.</p>`;
  return html`<div class="scroll">
    <table class="supplied">
      <thead>
        <tr>
          <th>Import</th>
          <th>What</th>
          <th>From</th>
          <th>Supplied by</th>
          <th>When (UTC)</th>
          <th>State</th>
        </tr>
      </thead>
      <tbody>
        ${imports.map(
          (i) =>
            html`<tr
              data-kind="${i.kind}"
              data-import="${i.id}"
              class="${i.withdrawnAt === null ? 'live' : 'withdrawn'}"
            >
              <td>${i.kind} ${i.id}</td>
              <td>${whatWords(i)}</td>
              <td>${i.fileName} <code title="SHA-256 of the file">${i.sha256.slice(0, 12)}</code></td>
              <td>${i.suppliedBy}</td>
              <td>${i.importedAt}</td>
              <td>${importState(i, accountId, csrf)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

const STYLE = `form.entry{border:1px solid #d8dee4;padding:.5rem .75rem;margin:.5rem 0}form.entry p{margin:.25rem 0 .5rem}
form.withdraw label{margin:0 .5rem 0 0}.withdrawn{color:#57606a}.notice{color:#067647;font-weight:600}
ul.errors{color:#b42318}`;

/**
 * The page where an accountant supplies what the figures lack (docs/web-page.md, "Supplying
 * costs and proceeds"): per coin moved in and per P2P sale a form, the two uploads, and every
 * supplied figure's import with who supplied it, when and from what, each withdrawable.
 */
export function supplyPage(view: SupplyView, context: PageContext): Html {
  const title = `Supplied figures: ${view.account.name}`;
  const id = view.account.id;
  const more = (count: number, what: string) =>
    count > LISTED ? html`<p>The first ${LISTED} of ${count} ${what}, oldest first.</p>` : '';
  return layout(
    title,
    html`${header(title, context)}
      <p><a href="/tax-years/${encodeURIComponent(id)}">Back to the tax years</a></p>
      ${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : ''}
      ${
        view.errors && view.errors.length > 0
          ? html`<div role="alert">
              <p class="error">Nothing was written:</p>
              <ul class="errors">
                ${view.errors.map((e) => html`<li>${e}</li>`)}
              </ul>
            </div>`
          : ''
      }
      <h2>What lacks a cost</h2>
      ${unknownCostsSection(view.unknownCosts)}
      ${
        view.unknownCosts.length > 0
          ? html`<p>
              Show the coins moved in of:
              ${view.unknownCosts.map((c) => html`<a href="${supplyPath(id)}?coin=${encodeURIComponent(c.coin)}">${c.coin}</a> `)}
              ${view.coin ? html`<a href="${supplyPath(id)}">all coins</a>` : ''}
            </p>`
          : ''
      }
      ${more(view.deposits.length, view.coin ? `coins moved in of ${view.coin}` : 'coins moved in')}
      ${view.deposits.slice(0, LISTED).map((d) => depositForm(d, id, context.csrf))}
      <h2>What lacks proceeds</h2>
      ${view.sales.length === 0 ? html`<p>Every P2P sale has supplied proceeds.</p>` : ''}
      ${more(view.sales.length, 'P2P sales')} ${view.sales.slice(0, LISTED).map((s) => saleForm(s, id, context.csrf))}
      <h2 id="away">Coins away and not back</h2>
      ${coinsAwaySection(view.away, view.awayDays, view.imports, id, context.csrf, LISTED)}
      <h2>Upload a file</h2>
      ${uploadForm('cost-basis', id, context.csrf)} ${uploadForm('proceeds', id, context.csrf)}
      ${uploadForm('away-decision', id, context.csrf)}
      <h2 id="supplied">Supplied figures</h2>
      <p>
        Every import, from the page or <code>ledgerline cost-basis|proceeds|away-decision import</code>. Withdrawing one
        keeps it here, marked with who withdrew it, when and why; its figures then count nowhere (the tax figures are
        walked again without them).
      </p>
      ${suppliedFiguresSection(view.imports, id, context.csrf)}`,
    { style: STYLE },
  );
}
