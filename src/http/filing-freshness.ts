import type { RulesMethod } from '../accounting/gains/gains-method.ts';
import { minute } from './coverage-timeline.ts';
import type { FilingYear, MethodFigures } from './filing-figures.ts';
import { type Html, html } from './html.ts';

/** "about 4 seconds": how long the last computation took, as a reader's expectation. */
function duration(ms: number | undefined): string {
  if (ms === undefined) return 'a few seconds to a minute';
  const seconds = Math.max(1, Math.round(ms / 1000));
  return seconds < 90
    ? `about ${seconds} second${seconds === 1 ? '' : 's'}`
    : `about ${Math.round(seconds / 60)} minutes`;
}

const failure = (figures: Pick<MethodFigures, 'failedReason'>) =>
  figures.failedReason === undefined
    ? ''
    : html`<p class="error">
        The last try to calculate them failed (${figures.failedReason}); it is being tried again.
      </p>`;

/**
 * A method with no figures to show yet: they are being calculated from the whole history (the
 * worker's job); the page reloads itself (the route's Refresh header) until they are there.
 */
export function computingNote(method: RulesMethod, figures: MethodFigures): Html {
  return html`<div class="status computing" data-computing="${method}">
    <p class="partial">Being calculated.</p>
    <p>
      The figures are being calculated from the account's whole history (${duration(figures.lastComputeMs)}). This page
      reloads by itself until they are ready.
    </p>
    ${failure(figures)}
  </div>`;
}

/**
 * The status of a year whose figures are the last ones calculated, not those of the current
 * records and supplied figures: said before anything else, never "complete".
 */
export function recalculatingStatus(fy: FilingYear): Html {
  return html`<div class="status computing" data-computing="${fy.method}">
    <p class="partial">Being recalculated: these figures are out of date.</p>
    <p>
      They are the figures as of ${fy.asOf === undefined ? 'an earlier calculation' : minute(fy.asOf)}. Records or
      supplied figures changed since, and the figures are being calculated again; this page reloads by itself until they
      are ready.
    </p>
  </div>`;
}
