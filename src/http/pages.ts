import { GAINS_METHODS } from '../accounting/gains/gains-method.ts';
import { DEFAULT_LONG_TERM_DAYS } from '../accounting/lots/lot-method.ts';
import type { ListedExport } from '../export/export-files.ts';
import type { ExportRequestInput } from '../export/export-request.ts';
import type { ReportDefinition } from '../export/report-definition.ts';
import { BALANCE_STYLE, balancesSection } from './balance-chart.ts';
import { BOARD_PATH, READ_ONLY_BOARD_PATH } from './bull-board.ts';
import type { AccountCoverage, PeriodGap } from './coverage.ts';
import { coverageSection, gapList, TIMELINE_STYLE } from './coverage-timeline.ts';
import { type Html, html } from './html.ts';
import type { CoinBalances } from './monthly-balances.ts';
import { PERIOD_PRESETS, TIME_ZONES } from './period-presets.ts';
import { optionClass, reportOptionStyle } from './report-options.ts';
import type { Role } from './web-auth.ts';

/** What every signed-in page needs: the form token, and the role (which queue board to link). */
export interface PageContext {
  csrf: string;
  role: Role;
}

const csrfField = (csrf: string) => html`<input type="hidden" name="_csrf" value="${csrf}" />`;

/** The accountants' pages: plain HTML and a little CSS, no script (a finished job is found by meta refresh). */

const STYLE = `body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1b1f24}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}th,td{border-bottom:1px solid #d8dee4;padding:.35rem .5rem;text-align:left;font-size:.92rem}
th{background:#f3f5f7}form.inline{display:inline}fieldset{border:1px solid #d8dee4;padding:1rem;margin-bottom:1.5rem}
label{display:inline-block;margin:0 1rem .5rem 0}code{font-size:.85rem;word-break:break-all}.error{color:#b42318;font-weight:600}
.nowrap{white-space:nowrap}.state-completed{color:#067647}.state-failed{color:#b42318}header{display:flex;justify-content:space-between;align-items:center}
.partial{color:#9a6700;font-weight:600}.scroll{overflow-x:auto}dt{font-weight:600;margin-top:.4rem}dd{margin-left:1rem}
details{margin-top:.75rem}summary{cursor:pointer}
@media (max-width:640px){body{margin:1rem auto}header{flex-direction:column;align-items:flex-start}h1{font-size:1.5rem}
label{display:block;margin:.5rem 0}select{max-width:100%}fieldset{padding:.75rem}}
${TIMELINE_STYLE}
${BALANCE_STYLE}`;

export function layout(title: string, body: Html, options: { refreshSeconds?: number } = {}): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        ${options.refreshSeconds ? html`<meta http-equiv="refresh" content="${options.refreshSeconds}" />` : ''}
        <title>${title} · ledgerline</title>
        <style>
          ${STYLE}
        </style>
      </head>
      <body>
        ${body}
      </body>
    </html> `;
}

function header(title: string, context: PageContext): Html {
  const board = context.role === 'admin' ? BOARD_PATH : READ_ONLY_BOARD_PATH;
  return html`<header>
    <h1>${title}</h1>
    <nav>
      <a href="/">Exports</a> · <a href="${board}">Queues${context.role === 'admin' ? ' (admin)' : ''}</a> ·
      <form class="inline" method="post" action="/logout">
        ${csrfField(context.csrf)}<button type="submit">Sign out</button>
      </form>
    </nav>
  </header>`;
}

export function loginPage(csrf: string, error?: string): Html {
  return layout(
    'Sign in',
    html`<h1>ledgerline</h1>
      <p>Sign in with the access token your administrator gave you.</p>
      ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
      <form method="post" action="/login">
        ${csrfField(csrf)}
        <label>Token <input type="password" name="token" autocomplete="current-password" required autofocus /></label>
        <button type="submit">Sign in</button>
      </form>`,
  );
}

export interface AccountView {
  id: string;
  name: string;
  /** Each finished export with the parts of its period the data lacked when it was written. */
  exports: Array<ListedExport & { gaps: PeriodGap[] }>;
  coverage: AccountCoverage;
  balances: CoinBalances[];
}

/** The request form as sent back: its values kept, and the error or the coverage warning. */
export interface FormState {
  values: ExportRequestInput;
  error?: string;
  gaps?: PeriodGap[];
}

export interface JobView {
  id: string;
  state: string;
  report: string;
  reportTitle: string;
  accountName: string;
  from: string;
  to: string;
  tz: string;
  coin?: string | undefined;
  includePending?: boolean | undefined;
  createdAt: string;
  failedReason?: string | undefined;
  result?:
    { csvFile: string; manifestFile: string; rowCount: number; sha256: string; unmappedRows: number } | undefined;
  accountId: string;
  /** The parts of the period the data did not cover when the export was written (or now, before). */
  gaps: PeriodGap[];
}

const partialMark = (job: JobView) => (job.gaps.length > 0 ? html` <span class="partial">(partial)</span>` : '');

export function downloadLinks(accountId: string, csvFile: string, manifestFile: string): Html {
  const base = `/downloads/${encodeURIComponent(accountId)}/`;
  // A text report (the beancount journal) has no spreadsheet form: its file and its manifest.
  if (!csvFile.endsWith('.csv')) {
    return html`<a href="${base + encodeURIComponent(csvFile)}" download>${csvFile.split('.').pop() ?? 'file'}</a> ·
      <a href="${base + encodeURIComponent(manifestFile)}" download>manifest</a>`;
  }
  const xlsxFile = csvFile.replace(/\.csv$/, '.xlsx');
  return html`<a href="${base + encodeURIComponent(csvFile)}" download>CSV</a> ·
    <a
      href="${base + encodeURIComponent(xlsxFile)}"
      download
      title="the same rows for Excel: ids as text, amounts exact"
      >XLSX</a
    >
    ·
    <a href="${base + encodeURIComponent(manifestFile)}" download>manifest</a>`;
}

// Text, not type="date": a date input shows the browser's locale (01/02/2026), never YYYY-MM-DD.
const dateInput = (name: string, value: string | undefined) =>
  html`<input
    type="text"
    name="${name}"
    value="${value ?? ''}"
    placeholder="YYYY-MM-DD"
    pattern="\\d{4}-\\d{2}-\\d{2}"
    inputmode="numeric"
    size="10"
  />`;

/**
 * What the accountant can do about the gaps: a gap the exchange still serves is filled by a
 * backfill or the nightly sync; one beyond its horizon is gone from the exchange for good, and
 * saying "run a backfill" there would send someone after records no command can read.
 */
export function gapAdvice(gaps: readonly PeriodGap[]): Html {
  const lost = gaps.filter((g) => g.beyondHorizon).length;
  const recoverable = gaps.length - lost;
  const fix =
    recoverable === 0
      ? ''
      : lost === 0
        ? 'Run a backfill or wait for the nightly sync, or request it anyway'
        : 'A backfill or the nightly sync can still fill the other gaps; or request it anyway';
  const gone =
    lost === 0
      ? ''
      : html`<strong
            >${lost === gaps.length ? 'These records are' : 'Some of these records are'} beyond the exchange's horizon
            and cannot be read any more</strong
          >
          (it keeps them only for a while): the report will lack them whatever is run; only the exchange's own account
          statement still has them.`;
  return html`<p>
    The report would lack these records. ${gone}
    ${fix ? html`${fix}: it will be marked partial.` : html`Request it anyway: it will be marked partial.`}
  </p>`;
}

function requestForm(
  accounts: AccountView[],
  reports: readonly ReportDefinition[],
  csrf: string,
  form?: FormState,
): Html {
  const v = form?.values ?? {};
  const selected = (a: string | undefined, b: string) => (a === b ? html` selected` : '');
  return html`<fieldset>
    <legend>Request a report</legend>
    ${form?.error ? html`<p class="error" role="alert">${form.error}</p>` : ''}
    ${
      form?.gaps
        ? html`<div class="warning" role="alert">
            <p><strong>The data does not cover this whole period:</strong></p>
            ${gapList(form.gaps)} ${gapAdvice(form.gaps)}
          </div>`
        : ''
    }
    ${reportOptionStyle(reports)}
    <form method="post" action="/exports">
      ${csrfField(csrf)}
      <label
        >Account
        <select name="accountId" required>
          ${accounts.map((a) => html`<option value="${a.id}" ${selected(v.accountId, a.id)}>${a.name}</option>`)}
        </select></label
      >
      <label
        >Report
        <select name="report" required>
          ${reports.map((r) => html`<option value="${r.name}" ${selected(v.report, r.name)}>${r.title}</option>`)}
        </select></label
      >
      <label
        >Period
        <select name="period">
          ${PERIOD_PRESETS.map((p) => html`<option value="${p.value}">${p.label}</option>`)}
        </select></label
      >
      <label>From ${dateInput('from', v.from)}</label>
      <label>To (included) ${dateInput('to', v.to)}</label>
      <label
        >Time zone
        <select name="tz" required>
          ${TIME_ZONES.map((z) => html`<option${selected(v.tz ?? 'UTC', z)}>${z}</option>`)}
        </select></label
      >
      <label class="${optionClass('coin')}"
        >Coin <input type="text" name="coin" value="${v.coin ?? ''}" size="8" placeholder="all"
      /></label>
      <label class="${optionClass('lots')}"
        >Lots (realized gains)
        <select name="method">
          ${GAINS_METHODS.map((m) => html`<option${selected(v.method ?? 'fifo', m)}>${m}</option>`)}
        </select></label
      >
      <label class="${optionClass('valuation')}"
        >Valuation currency
        <input type="text" name="valuation" value="${v.valuation ?? ''}" size="5" placeholder="default"
      /></label>
      <label class="${optionClass('lots')}"
        >Long-term after
        <input
          type="number"
          name="longTermDays"
          value="${v.longTermDays ?? String(DEFAULT_LONG_TERM_DAYS)}"
          min="1"
          max="36525"
          size="5"
        />
        days</label
      >
      <label class="${optionClass('pending')}"
        ><input type="checkbox" name="includePending" value="1" ${v.includePending ? html` checked` : ''} /> include
        pending transfers</label
      >
      ${
        form?.gaps
          ? html`<label class="partial"
              ><input type="checkbox" name="acceptPartial" value="1" required /> request it anyway, marked
              partial</label
            >`
          : ''
      }
      <button type="submit">Request export</button>
    </form>
    ${reportGuide(reports)}
  </fieldset>`;
}

const MANIFEST_FIELDS: ReadonlyArray<[string, string]> = [
  ['report, title', 'which report the CSV is'],
  ['account', 'the account it was made from (id and name)'],
  [
    'parameters',
    'the period as asked (from, to, time zone), coin and pending-transfer options; for gains and income the method, its rulesVersion and the valuationCurrency',
  ],
  ['period', 'the same period as the exact UTC interval the local dates stand for'],
  ['columns, rowCount, bytes', 'what the CSV holds'],
  ['sha256', "the CSV's checksum: recompute it to prove the file is unaltered"],
  ['unmapped', 'rows carrying a value the exchange documents nowhere, kept as received and counted here'],
  ['generatedAt', 'when the file was written (only here, so the same data always gives the same CSV)'],
];

/** What each report is and what the manifest beside each CSV says, folded away under the form. */
function reportGuide(reports: readonly ReportDefinition[]): Html {
  return html`<details>
    <summary>About the reports and the manifest</summary>
    <dl>
      ${reports.map(
        (r) =>
          html`<dt>${r.title}</dt>
            <dd>${r.description}</dd>`,
      )}
    </dl>
    <p>Each CSV comes with a manifest (JSON):</p>
    <dl>
      ${MANIFEST_FIELDS.map(
        ([field, meaning]) =>
          html`<dt><code>${field}</code></dt>
            <dd>${meaning}</dd>`,
      )}
    </dl>
  </details>`;
}

function jobsTable(jobs: JobView[]): Html {
  if (jobs.length === 0) return html`<p>No export requested yet.</p>`;
  return html`<div class="scroll">
    <table>
      <thead>
        <tr>
          <th>Requested</th>
          <th>Account</th>
          <th>Report</th>
          <th>Period</th>
          <th>State</th>
        </tr>
      </thead>
      <tbody>
        ${jobs.map(
          (j) =>
            html`<tr>
              <td class="nowrap">${j.createdAt}</td>
              <td>${j.accountName}</td>
              <td>${j.reportTitle}</td>
              <td class="nowrap">${j.from} to ${j.to} (${j.tz})</td>
              <td>
                <a class="state-${j.state}" href="/jobs/${encodeURIComponent(j.id)}">${j.state}</a>${partialMark(j)}
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

function exportsTable(account: AccountView): Html {
  if (account.exports.length === 0) return html`<p>No finished export.</p>`;
  return html`<div class="scroll">
    <table>
      <thead>
        <tr>
          <th>Report</th>
          <th>Period</th>
          <th>Options</th>
          <th>Rows</th>
          <th>Unmapped</th>
          <th>Generated (UTC)</th>
          <th>sha256</th>
          <th>Download</th>
        </tr>
      </thead>
      <tbody>
        ${account.exports.map(({ manifest: m, csvFile, manifestFile, gaps }) => {
          const options = [
            m.parameters.coin ? `coin ${m.parameters.coin}` : '',
            m.parameters.includePending ? 'with pending' : '',
          ]
            .filter(Boolean)
            .join(', ');
          return html`<tr>
            <td>${m.title}${gaps.length > 0 ? html` <span class="partial">(partial)</span>` : ''}</td>
            <td class="nowrap">${m.parameters.from} to ${m.parameters.to} (${m.parameters.tz})</td>
            <td>${options}</td>
            <td>${m.rowCount}</td>
            <td>${m.unmapped.rows}</td>
            <td class="nowrap">${m.generatedAt}</td>
            <td><code title="${m.sha256}">${m.sha256.slice(0, 12)}</code></td>
            <td>${downloadLinks(account.id, csvFile, manifestFile)}</td>
          </tr>`;
        })}
      </tbody>
    </table>
  </div>`;
}

export function homePage(
  input: {
    accounts: AccountView[];
    reports: readonly ReportDefinition[];
    jobs: JobView[];
    form?: FormState | undefined;
    now: number;
  },
  context: PageContext,
): Html {
  return layout(
    'Exports',
    html`${header('Exports', context)}
      ${input.accounts.length === 0 ? html`<p>No account is registered yet.</p>` : requestForm(input.accounts, input.reports, context.csrf, input.form)}
      <h2>Coverage</h2>
      ${input.accounts.map(
        (a) =>
          html`<h3>${a.name}</h3>
            ${coverageSection(a.coverage, input.now)}
            <h4>Balances</h4>
            ${balancesSection(a.balances, input.now)}`,
      )}
      <h2>Requested exports</h2>
      ${jobsTable(input.jobs)}
      <h2>Finished exports</h2>
      ${input.accounts.map(
        (a) =>
          html`<h3>${a.name}</h3>
            ${exportsTable(a)}`,
      )}`,
  );
}

export function jobPage(job: JobView, context: PageContext): Html {
  const running = job.state !== 'completed' && job.state !== 'failed';
  return layout(
    `Export ${job.reportTitle}`,
    html`${header(`Export: ${job.reportTitle}`, context)}
      <table>
        <tbody>
          <tr>
            <th>Account</th>
            <td>${job.accountName}</td>
          </tr>
          <tr>
            <th>Period</th>
            <td>${job.from} to ${job.to} (${job.tz})</td>
          </tr>
          ${
            job.coin
              ? html`<tr>
                  <th>Coin</th>
                  <td>${job.coin}</td>
                </tr>`
              : ''
          }
          ${
            job.includePending
              ? html`<tr>
                  <th>Pending transfers</th>
                  <td>included</td>
                </tr>`
              : ''
          }
          <tr>
            <th>State</th>
            <td id="state" class="state-${job.state}">${job.state}</td>
          </tr>
          <tr>
            <th>Coverage</th>
            <td id="coverage">
              ${job.gaps.length === 0 ? 'complete: the data covers the whole period' : html`<span class="partial">partial</span>${gapList(job.gaps)}`}
            </td>
          </tr>
          ${
            job.result
              ? html`<tr>
                    <th>Rows</th>
                    <td>${job.result.rowCount}</td>
                  </tr>
                  <tr>
                    <th>Rows with unmapped values</th>
                    <td>${job.result.unmappedRows}</td>
                  </tr>
                  <tr>
                    <th>sha256</th>
                    <td><code>${job.result.sha256}</code></td>
                  </tr>
                  <tr>
                    <th>Download</th>
                    <td id="downloads">${downloadLinks(job.accountId, job.result.csvFile, job.result.manifestFile)}</td>
                  </tr>`
              : ''
          }
          ${
            job.failedReason
              ? html`<tr>
                  <th>Reason</th>
                  <td class="error">${job.failedReason}</td>
                </tr>`
              : ''
          }
        </tbody>
      </table>
      ${running ? html`<p>Working on it: this page refreshes every 2 seconds.</p>` : html`<p><a href="/">Back to the exports</a></p>`}`,
    { refreshSeconds: running ? 2 : undefined },
  );
}
