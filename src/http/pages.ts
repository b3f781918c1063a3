import type { ListedExport } from '../export/export-files.ts';
import type { ReportDefinition } from '../export/report-definition.ts';
import { balancesSection } from './balance-chart.ts';
import type { AccountCoverage, PeriodGap } from './coverage.ts';
import { coverageSection, gapList } from './coverage-timeline.ts';
import { type FormState, requestForm } from './export-form.ts';
import { type Html, html } from './html.ts';
import type { CoinBalances } from './monthly-balances.ts';
import { header, layout, type PageContext } from './page-layout.ts';
import { METHOD_GROUPS, plain } from './plain-words.ts';
import { supplyPath, type UnknownCost, unknownCostsSection } from './unknown-costs.ts';

export type { FormState } from './export-form.ts';
export { gapAdvice } from './export-form.ts';
export { layout, loginPage, type PageContext } from './page-layout.ts';

export interface AccountView {
  id: string;
  name: string;
  /** Each finished export with the parts of its period the data lacked when it was written. */
  exports: Array<ListedExport & { gaps: PeriodGap[] }>;
  coverage: AccountCoverage;
  balances: CoinBalances[];
  /** Coins moved in that no supplied cost covers (unknown-costs.ts). */
  unknownCosts?: UnknownCost[];
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
  /** The gains method (fifo ... uk, de) and the valuation currency asked for, if any. */
  method?: string | undefined;
  valuation?: string | undefined;
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
      ${manifestLink(base, manifestFile)}`;
  }
  const xlsxFile = csvFile.replace(/\.csv$/, '.xlsx');
  return html`<a href="${base + encodeURIComponent(csvFile)}" download>CSV</a> ·
    <a
      href="${base + encodeURIComponent(xlsxFile)}"
      download
      title="the same rows for Excel: ids as text, amounts exact"
      >XLSX</a
    >
    · ${manifestLink(base, manifestFile)}`;
}

/** The manifest, in words: what the file is and how to check it (the technical name in its tooltip). */
const manifestLink = (base: string, manifestFile: string) =>
  html`<a
    href="${base + encodeURIComponent(manifestFile)}"
    download
    title="manifest (JSON): the report's period, options, row count and checksum"
    >file details</a
  >`;

/** A job's state as the accountant reads it; BullMQ's own word stays in data-state. */
const STATE_WORDS: Readonly<Record<string, string>> = {
  waiting: 'Waiting for the export worker',
  prioritized: 'Waiting for the export worker',
  delayed: 'Waiting to try again',
  'waiting-children': 'Waiting for the export worker',
  active: 'Writing the file',
  completed: 'Done: ready to download',
  failed: 'Failed',
};
export const stateWords = (state: string): string => STATE_WORDS[state] ?? `Not known (${state})`;

const methodWords = (method: string): string =>
  METHOD_GROUPS.flatMap((g) => g.methods).find(([m]) => m === method)?.[1] ?? method;

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
              <td>${j.reportTitle}${j.method ? ` (${methodWords(j.method)})` : ''}</td>
              <td class="nowrap">${j.from} to ${j.to} (${j.tz})</td>
              <td>
                <a class="state-${j.state}" data-state="${j.state}" href="/jobs/${encodeURIComponent(j.id)}"
                  >${stateWords(j.state)}</a
                >${partialMark(j)}
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
          <th>
            ${plain('Unrecognised values', 'unmapped: rows with a value the exchange documents nowhere, kept as received')}
          </th>
          <th>Generated (UTC)</th>
          <th>${plain('Checksum', 'sha256 of the CSV: recompute it to prove the file is unaltered')}</th>
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
            <p>
              <a class="tax-years" href="/tax-years/${encodeURIComponent(a.id)}"
                >Tax years: the figures for the return (UK SA108, German Anlage SO)</a
              >
            </p>
            ${coverageSection(a.coverage, input.now)}
            <h4>Balances</h4>
            ${balancesSection(a.balances, input.now)}
            <h4>What lacks a cost</h4>
            ${unknownCostsSection(a.unknownCosts ?? [], supplyPath(a.id))}`,
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
          ${
            job.method
              ? html`<tr>
                  <th>Method</th>
                  <td id="method">${methodWords(job.method)}</td>
                </tr>`
              : ''
          }
          ${
            job.valuation
              ? html`<tr>
                  <th>Valued in</th>
                  <td>${job.valuation}</td>
                </tr>`
              : ''
          }
          <tr>
            <th>State</th>
            <td id="state" class="state-${job.state}" data-state="${job.state}">${stateWords(job.state)}</td>
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
                    <th>
                      ${plain('Rows with unrecognised values', 'unmapped rows: a value the exchange documents nowhere, kept as received')}
                    </th>
                    <td>${job.result.unmappedRows}</td>
                  </tr>
                  <tr>
                    <th>${plain('Checksum', 'sha256 of the CSV: recompute it to prove the file is unaltered')}</th>
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
