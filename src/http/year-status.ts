import { type PeriodGap, STREAM_TITLES } from './coverage.ts';
import { BEYOND_HORIZON } from './coverage-timeline.ts';
import type { FilingYear } from './filing-figures.ts';
import { recalculatingStatus } from './filing-freshness.ts';
import { type Html, html } from './html.ts';
import { plain, scopeWords } from './plain-words.ts';
import { dayWords, momentWords, moneyWords } from './tax-year-words.ts';
import { unknownsOf, type YearFacts, type YearState, yearState } from './year-state.ts';

/** The facts of a year of the page: the summary's rows, and the gaps its file's coverage would name. */
export const yearFacts = (fy: FilingYear): YearFacts => ({
  method: fy.method,
  filing: fy.filing,
  total: fy.total,
  futures: fy.futures,
  recordsMissing: fy.gaps.length > 0,
});

const STATE_WORDS: Readonly<Record<YearState, string>> = {
  complete: 'Complete',
  partial: 'Partial',
  undecided: 'Undecided',
};

/** The records not read, each in the year's own time and in words (no exchange product names). */
function gapWords(fy: FilingYear, gaps: readonly PeriodGap[]): Html {
  return html`<ul class="gaps">
    ${gaps.map(
      (g) =>
        html`<li>
          ${STREAM_TITLES[g.stream]}${g.scope ? html` (${scopeWords(g.scope)})` : ''}: not read from
          <span class="nowrap">${momentWords(fy.method, g.start)}</span> to
          <span class="nowrap">${momentWords(fy.method, g.end)}</span>${
            g.beyondHorizon ? html` — <strong class="beyond">${BEYOND_HORIZON}</strong>` : ''
          }
        </li>`,
    )}
  </ul>`;
}

/** What leaves a whole year undecided, in words. */
function undecidedWords(fy: FilingYear, currency: string): Html[] {
  const u = unknownsOf(yearFacts(fy));
  const sales = fy.method === 'uk' ? 'disposal' : 'sale';
  return [
    ...(u.unpriced > 0
      ? [
          html`<li>
            ${u.unpriced} ${sales}${u.unpriced === 1 ? ' has' : 's have'} no price in ${currency} for the day: in none
            of the figures.
          </li>`,
        ]
      : []),
    ...(u.unknownCostProceeds !== '0'
      ? [
          html`<li>
            Coins sold for ${moneyWords(u.unknownCostProceeds, currency)} have a cost nobody supplied: in none of the
            figures until it is.
          </li>`,
        ]
      : []),
    ...(u.unpricedFutures > 0
      ? [
          html`<li>
            ${u.unpricedFutures} futures record${u.unpricedFutures === 1 ? ' has' : 's have'} no ${currency} rate.
          </li>`,
        ]
      : []),
    ...(u.freigrenzeUndecided
      ? [html`<li>The Freigrenze cannot be decided until the missing costs are known.</li>`]
      : []),
  ];
}

/**
 * The year's state (year-state.ts) in words: the word the summary CSV and its manifest say too
 * (`data-state`), then why.
 */
export function yearStatus(fy: FilingYear, now: number, currency: string): Html {
  // Figures of an older input version, shown while the current ones are computed: never a state.
  if (fy.computing === true) return recalculatingStatus(fy);
  const state = yearState(yearFacts(fy));
  const word = html`<strong class="state-word">${STATE_WORDS[state]}.</strong>`;
  if (state === 'complete') {
    return html`<div class="status state-complete" data-state="complete">
      <p>${word} The whole year, every record read, every value known.</p>
    </div>`;
  }
  if (state === 'undecided') {
    return html`<div class="status state-undecided" data-state="undecided">
      <p>${word} The whole year is read, but some values are not known yet:</p>
      <ul>
        ${undecidedWords(fy, currency)}
      </ul>
    </div>`;
  }
  const reasons: Html[] = [];
  if (fy.year.endMs > now) {
    reasons.push(
      html`<p>
        The year is not over: the figures run to
        ${
          fy.readTo === undefined
            ? dayWords(fy.method, now)
            : html`the last records read, <span class="nowrap">${momentWords(fy.method, fy.readTo)}</span>`
        }.
      </p>`,
    );
  } else if (fy.gaps.length === 0) {
    reasons.push(html`<p>The figures cover part of the year only.</p>`);
  }
  if (fy.gaps.length > 0) {
    reasons.push(
      html`<p>Records are missing, so the figures may be short:</p>
        ${gapWords(fy, fy.gaps)}`,
    );
  }
  return html`<div class="status state-partial" data-state="partial">
    <p>
      ${word} ${plain('Not the figures of the whole year', 'complete: false; the file is _PARTIAL')}, not to be filed as
      they stand.
    </p>
    ${reasons}
  </div>`;
}
