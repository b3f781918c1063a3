import type { Range } from '../ingest/coverage/window-store.ts';
import { type AccountCoverage, type PeriodGap, STREAM_TITLES, type StreamTimeline } from './coverage.ts';
import { type Html, html } from './html.ts';

/**
 * The coverage timeline, drawn on the server as inline SVG (no script, no front-end build; the
 * page's CSP allows nothing else): one bar per stream and scope from the first window ever planned
 * to now, never-read grey, planned or running amber, failed red, covered green. The bar stretches
 * with the page (viewBox, preserveAspectRatio none); its labels are HTML, so they do not stretch.
 */

const WIDTH = 1000;
const COLOURS = { never: '#d0d7de', open: '#f5b83d', failed: '#d92d20', covered: '#17a34a' } as const;
const KIND_TITLES = { open: 'being read', failed: 'failed', covered: 'covered' } as const;

export const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
export const minute = (ms: number | Date): string => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

function rects(ranges: Range[], kind: keyof typeof KIND_TITLES, x: (ms: number) => number): Html[] {
  return ranges.map((r) => {
    const left = x(r.start);
    const width = Math.max(x(r.end) - left, 1.5);
    return html`<rect x="${left.toFixed(1)}" y="0" width="${width.toFixed(1)}" height="18" fill="${COLOURS[kind]}"
      ><title>${KIND_TITLES[kind]}: ${day(r.start)} to ${day(r.end)}</title></rect
    >`;
  });
}

/** 1 January of each year inside the span, as a fraction of it. */
function yearTicks(start: number, end: number): Array<{ at: number; year: number }> {
  const ticks = [];
  for (let year = new Date(start).getUTCFullYear() + 1; Date.UTC(year, 0, 1) < end; year++) {
    ticks.push({ at: (Date.UTC(year, 0, 1) - start) / (end - start), year });
  }
  return ticks;
}

function streamRow(s: StreamTimeline, span: Range): Html {
  const x = (ms: number) =>
    ((Math.min(Math.max(ms, span.start), span.end) - span.start) / (span.end - span.start)) * WIDTH;
  const title = STREAM_TITLES[s.stream] + (s.scope ? ` (${s.scope})` : '');
  return html`<div class="timeline-row">
    <div class="timeline-label">
      <strong>${title}</strong>
      <span>as of ${s.asOf === null ? 'never read' : minute(s.asOf)}</span>
      ${s.lastSuccess ? html`<span>last read ${minute(s.lastSuccess)}</span>` : ''}
      ${s.lastFailure ? html`<span class="error" title="${s.lastFailure.error}">last failure ${minute(s.lastFailure.at)}</span>` : ''}
    </div>
    <svg
      class="timeline"
      viewBox="0 0 ${WIDTH} 18"
      preserveAspectRatio="none"
      role="img"
      aria-label="${title} coverage"
    >
      <rect x="0" y="0" width="${WIDTH}" height="18" fill="${COLOURS.never}"><title>never read</title></rect>
      ${rects(s.open, 'open', x)} ${rects(s.failed, 'failed', x)} ${rects(s.covered, 'covered', x)}
    </svg>
  </div>`;
}

const swatch = (colour: string, label: string) =>
  html`<span class="swatch"><span style="background:${colour}"></span>${label}</span>`;

export function coverageSection(coverage: AccountCoverage, now: number): Html {
  const r = coverage.reconciliation;
  const reconciliation = r
    ? html`<p>
        Last reconciliation ${minute(r.finishedAt)}:
        <strong class="${r.passed ? 'state-completed' : 'state-failed'}">${r.passed ? 'passed' : 'failed'}</strong>
        ${r.finding ? html`— ${r.finding}` : ''}
      </p>`
    : html`<p>No reconciliation has run yet.</p>`;
  const all = coverage.streams.flatMap((s) => [...s.covered, ...s.failed, ...s.open]);
  if (all.length === 0)
    return html`<p>Nothing has been read for this account yet.</p>
      ${reconciliation}`;
  const span = {
    start: Math.min(...all.map((range) => range.start)),
    end: Math.max(now, ...all.map((range) => range.end)),
  };
  return html`<div class="coverage">
    <div class="timeline-axis">
      <span>${day(span.start)}</span>
      ${yearTicks(span.start, span.end)
        // A label next to an end would run into the end's date.
        .filter((t) => t.at > 0.12 && t.at < 0.88)
        .map((t) => html`<span class="tick" style="left:${(t.at * 100).toFixed(2)}%">${t.year}</span>`)}
      <span>${day(span.end)}</span>
    </div>
    ${coverage.streams.map((s) => streamRow(s, span))}
    <p class="legend">
      ${swatch(COLOURS.covered, 'covered')} ${swatch(COLOURS.failed, 'failed')} ${swatch(COLOURS.open, 'being read')}
      ${swatch(COLOURS.never, 'never read')}
    </p>
    ${reconciliation}
  </div>`;
}

/** The warning shown before a request, and on the job page after, for a period not fully covered. */
export function gapList(gaps: readonly PeriodGap[]): Html {
  return html`<ul class="gaps">
    ${gaps.map(
      (g) =>
        html`<li>
          ${STREAM_TITLES[g.stream]}${g.scope ? ` (${g.scope})` : ''}: not read from ${minute(g.start)} to
          ${minute(g.end)}
        </li>`,
    )}
  </ul>`;
}

export const TIMELINE_STYLE = `.coverage{margin:.5rem 0 1.5rem}.timeline-row{margin:.35rem 0}
.timeline-label{display:flex;flex-wrap:wrap;gap:.25rem 1rem;font-size:.88rem;margin-bottom:.15rem}
svg.timeline{display:block;width:100%;height:18px;border-radius:3px}
.timeline-axis{position:relative;display:flex;justify-content:space-between;font-size:.8rem;color:#57606a}
.timeline-axis .tick{position:absolute;transform:translateX(-50%)}
.legend{font-size:.85rem}.swatch{margin-right:1rem;white-space:nowrap}
.swatch span{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;vertical-align:-.1rem;border-radius:2px}
ul.gaps{margin:.25rem 0 .75rem}.warning{background:#fff8e1;border:1px solid #f5b83d;padding:.5rem 1rem}`;
