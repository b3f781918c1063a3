import { uncoveredParts } from '../ingest/coverage/uncovered.ts';
import type { Range } from '../ingest/coverage/window-store.ts';
import { streamDefinition } from '../streams/registry.ts';
import { type AccountCoverage, type PeriodGap, STREAM_TITLES, type StreamTimeline } from './coverage.ts';
import { type Html, html } from './html.ts';
import { scopeWords } from './plain-words.ts';
import { axisTicks } from './timeline-axis.ts';

/**
 * The coverage timeline, drawn on the server as inline SVG (no script, no front-end build; the
 * page's CSP allows nothing else): one bar per stream and scope from the first window ever planned
 * to now, never-read grey, planned or running amber, failed red, covered green, and for a stream
 * the exchange forgets, what lies before its horizon unread in violet (not recoverable: no
 * backfill can read it, so it must not look like grey "not read yet"). The bar stretches
 * with the page (viewBox, preserveAspectRatio none); its labels are HTML, so they do not stretch.
 */

const WIDTH = 1000;
const COLOURS = {
  never: '#d0d7de',
  open: '#f5b83d',
  failed: '#d92d20',
  covered: '#17a34a',
  beyond: '#6e40c9',
} as const;
export const BEYOND_HORIZON = "beyond the exchange's horizon: not recoverable";
const KIND_TITLES = { open: 'being read', failed: 'failed', covered: 'covered', beyond: BEYOND_HORIZON } as const;

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

/**
 * What of the bar lies before the stream's horizon at `now` and was never read: gone from the
 * exchange. Empty for a stream the exchange keeps.
 */
export function beyondHorizon(s: StreamTimeline, span: Range, now: number): Range[] {
  const oldest = streamDefinition(s.stream).horizon?.oldestReadable(now);
  if (oldest === undefined || oldest <= span.start) return [];
  return uncoveredParts({ start: span.start, end: Math.min(oldest, span.end) }, s.covered);
}

function streamRow(s: StreamTimeline, span: Range, now: number): Html {
  const x = (ms: number) =>
    ((Math.min(Math.max(ms, span.start), span.end) - span.start) / (span.end - span.start)) * WIDTH;
  const title = STREAM_TITLES[s.stream] + (s.scope ? ` (${s.scope})` : '');
  const covered = s.covered.length > 0 ? `covered ${day(s.covered[0]!.start)} to ${day(s.covered.at(-1)!.end)}` : '';
  return html`<div class="timeline-row">
    <div class="timeline-label">
      <strong>${STREAM_TITLES[s.stream]}${s.scope ? html` (${scopeWords(s.scope)})` : ''}</strong>
      ${covered ? html`<span>${covered}${s.covered.length > 1 ? ` (with ${s.covered.length - 1} gap${s.covered.length > 2 ? 's' : ''})` : ''}</span>` : ''}
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
      ${rects(s.open, 'open', x)} ${rects(s.failed, 'failed', x)} ${rects(beyondHorizon(s, span, now), 'beyond', x)}
      ${rects(s.covered, 'covered', x)}
    </svg>
  </div>`;
}

/**
 * The axis above the bars: tick marks at months, quarters or years (whichever gives at most a
 * dozen, `axisTicks`), each labelled. On a narrow screen only every other label (or every fourth)
 * is shown (CSS classes, no script), so labels never run into each other.
 */
function timelineAxis(span: Range, now: number): Html {
  return html`<div class="timeline-span">
      <span>from ${day(span.start)}</span><span>to ${day(span.end)}${span.end === now ? ' (now)' : ''}</span>
    </div>
    <div class="timeline-axis" aria-hidden="true">
      ${axisTicks(span.start, span.end).map(
        (t) =>
          html`<span
            class="tick${t.rank % 2 === 1 ? ' odd' : ''}${t.rank % 4 !== 0 || t.late ? ' not4' : ''}"
            style="left:${(t.at * 100).toFixed(2)}%"
            >${t.label}</span
          >`,
      )}
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
  const hasBeyond = coverage.streams.some((s) => beyondHorizon(s, span, now).length > 0);
  return html`<div class="coverage">
    ${timelineAxis(span, now)} ${coverage.streams.map((s) => streamRow(s, span, now))}
    <p class="legend">
      ${swatch(COLOURS.covered, 'covered')} ${swatch(COLOURS.failed, 'failed')} ${swatch(COLOURS.open, 'being read')}
      ${swatch(COLOURS.never, 'never read')} ${hasBeyond ? swatch(COLOURS.beyond, BEYOND_HORIZON) : ''}
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
          ${minute(g.end)}${g.beyondHorizon ? html` — <strong class="beyond">${BEYOND_HORIZON}</strong>` : ''}
        </li>`,
    )}
  </ul>`;
}

export const TIMELINE_STYLE = `.coverage{margin:.5rem 0 1.5rem}.timeline-row{margin:.35rem 0}
.timeline-label{display:flex;flex-wrap:wrap;gap:.25rem 1rem;font-size:.88rem;margin-bottom:.15rem}
svg.timeline{display:block;width:100%;height:18px;border-radius:3px}
.timeline-span{display:flex;justify-content:space-between;font-size:.78rem;color:#57606a}
.timeline-axis{position:relative;height:1.2rem;font-size:.78rem;color:#57606a;border-bottom:1px solid #d0d7de;margin-bottom:.2rem}
.timeline-axis .tick{position:absolute;bottom:0;padding-left:3px;border-left:1px solid #8c959f;white-space:nowrap;line-height:1.1}
@media (max-width:900px){.timeline-axis .tick.odd{color:transparent}}
@media (max-width:480px){.timeline-axis .tick.not4{color:transparent}}
.beyond{color:#6e40c9}
.legend{font-size:.85rem}.swatch{margin-right:1rem;white-space:nowrap}
.swatch span{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;vertical-align:-.1rem;border-radius:2px}
ul.gaps{margin:.25rem 0 .75rem}.warning{background:#fff8e1;border:1px solid #f5b83d;padding:.5rem 1rem}`;
