import { DEFAULT_LONG_TERM_DAYS } from '../accounting/lots/lot-method.ts';
import type { ExportRequestInput } from '../export/export-request.ts';
import type { ReportDefinition } from '../export/report-definition.ts';
import type { PeriodGap } from './coverage.ts';
import { gapList } from './coverage-timeline.ts';
import { type Html, html } from './html.ts';
import { csrfField } from './page-layout.ts';
import { PERIOD_PRESETS, TIME_ZONES } from './period-presets.ts';
import { METHOD_GROUPS } from './plain-words.ts';
import { optionClass, reportOptionStyle } from './report-options.ts';

/** The export request form: report, period, the report's own options, and what it says about gaps. */

/** The request form as sent back: its values kept, and the error or the coverage warning. */
export interface FormState {
  values: ExportRequestInput;
  error?: string;
  gaps?: PeriodGap[];
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

export function requestForm(
  accounts: ReadonlyArray<{ id: string; name: string }>,
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
        >Gains method
        <select name="method">
          ${METHOD_GROUPS.map(
            (group) =>
              html`<optgroup label="${group.label}">
                ${group.methods.map(
                  ([value, words]) =>
                    html`<option value="${value}" ${selected(v.method ?? 'fifo', value)}>${words}</option>`,
                )}
              </optgroup>`,
          )}
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
