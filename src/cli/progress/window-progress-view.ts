import cliProgress from 'cli-progress';

import type { Config } from '../../config/config.ts';
import type { StreamProgress } from '../../ingest/coverage/window-progress.ts';
import { STREAM_DEFINITIONS } from '../../streams/registry.ts';
import { barLine } from './bar-line.ts';
import { etaSeconds, formatDuration, formatRate, remainingRequests } from './eta.ts';

/** The bar's parts, as cli-progress' format function gets them in the payload. */
interface BarPayload {
  label: string;
  status: string;
  details: string[];
  barSize: number;
}

/** A stream's pace as read: from its first update, the requests (pages) it has sent since. */
interface Pace {
  readonly at: number;
  readonly requests: number;
}

// Below this much reading the pace says little (start-up, the first window's pages).
const PACE_MIN_MS = 10_000;
const PACE_MIN_REQUESTS = 3;

/**
 * Shows backfill progress per stream: bars on a terminal, a plain line per
 * change elsewhere (CI logs, pipes).
 *
 * The ETA is the stream's remaining requests at its budget (the endpoint's requests per second
 * times EXCHANGE_RATE_FACTOR), not an extrapolation of rows: a spot backfill spends nearly all its
 * time waiting for its turn in a 1/s budget, which is expected and shown as waiting, never as
 * retries. Retries count only failed requests and restarts (the windows' attempts).
 */
export class WindowProgressView {
  readonly #started = Date.now();
  readonly #tty = Boolean(process.stderr.isTTY);
  #multibar: cliProgress.MultiBar | undefined;
  #labelWidth = 0;
  readonly #bars = new Map<string, cliProgress.SingleBar>();
  /** When each stream's last window ended: its bar's elapsed time and rows/s stop there. */
  readonly #finishedAt = new Map<string, number>();
  readonly #pace = new Map<string, Pace>();
  #lastLine = '';
  /** No worker has taken a window yet: the bars say so instead of an ETA no one is working to. */
  waitingForWorker = false;

  constructor(private readonly config: Pick<Config, 'exchangeRateFactor'>) {}

  /** The bars, made at the first update, when the streams shown (and so their labels) are known. */
  private bars(progress: readonly StreamProgress[]): cliProgress.MultiBar | undefined {
    if (!this.#tty) return undefined;
    if (!this.#multibar) {
      // The names shown line up, padded to the longest of them.
      this.#labelWidth = Math.max(4, ...progress.map((p) => p.stream.length));
      this.#multibar = new cliProgress.MultiBar({
        // A line of our own (bar-line.ts), fitted to the terminal's width at each redraw: the
        // parts that do not fit are left out whole, never cut mid-word by cli-progress.
        format: (_options, params, payload: BarPayload) =>
          barLine(
            { ...payload, fraction: params.progress, value: params.value, total: params.total },
            process.stderr.columns || 80,
          ),
        hideCursor: true,
        clearOnComplete: false,
        stream: process.stderr,
      });
    }
    return this.#multibar;
  }

  update(progress: readonly StreamProgress[]): void {
    const multibar = this.bars(progress);
    const now = Date.now();
    for (const p of progress) {
      const finished = p.total > 0 && p.done + p.failed === p.total;
      if (finished && !this.#finishedAt.has(p.stream)) this.#finishedAt.set(p.stream, now);
      const seconds = Math.max(((this.#finishedAt.get(p.stream) ?? now) - this.#started) / 1000, 0.001);
      const left = remainingRequests(p);
      const payload: BarPayload = {
        label: p.stream.padEnd(this.#labelWidth),
        barSize: barSize(this.#labelWidth),
        status:
          this.waitingForWorker && !finished
            ? 'waiting for a worker to take the windows'
            : etaText(p, this.requestsPerSecond(p), this.pacedRate(p, now)),
        details: [
          ...(left > 0 ? [`~${left} requests left`] : []),
          `${p.rows} rows`,
          `${formatRowRate(p.rows / seconds)} rows/s`,
          `${formatDuration(seconds)} elapsed`,
          ...(p.retries ? [`${p.retries} retries`] : []),
          ...(p.lastError ? [`last error: ${oneLine(p.lastError)}`] : []),
        ],
      };
      if (multibar) {
        let bar = this.#bars.get(p.stream);
        if (!bar) {
          bar = multibar.create(p.total, 0, payload);
          this.#bars.set(p.stream, bar);
        }
        bar.setTotal(p.total);
        bar.update(p.done + p.failed, payload);
      }
    }
    if (!multibar) {
      // No ETA here: it changes every tick, and a line is printed per change.
      const line = progress
        .map(
          (p) =>
            `${p.stream} ${p.done}/${p.total} windows${p.failed ? ` (${p.failed} failed)` : ''}, ${p.rows} rows` +
            `${p.retries ? `, ${p.retries} retries` : ''}${p.lastError ? `, last error: ${oneLine(p.lastError)}` : ''}`,
        )
        .join('; ');
      if (line !== this.#lastLine) process.stderr.write(`${line}\n`);
      this.#lastLine = line;
    }
  }

  stop(): void {
    this.#multibar?.stop();
  }

  /** The stream's budget: its endpoint's rate, times the factor the client's budget uses. */
  private requestsPerSecond(p: StreamProgress): number {
    return STREAM_DEFINITIONS[p.stream].endpoint.perSecond * this.config.exchangeRateFactor;
  }

  /**
   * The requests per second the stream has actually sent, once there is enough of it to tell: on a
   * loaded machine (or behind a slow exchange) it falls short of the budget, and an ETA at the
   * budget ran 1.5-2x short.
   */
  private pacedRate(p: StreamProgress, now: number): number | undefined {
    const requests = p.donePages + p.openPages;
    const first = this.#pace.get(p.stream);
    if (!first) {
      this.#pace.set(p.stream, { at: now, requests });
      return undefined;
    }
    const sent = requests - first.requests;
    if (now - first.at < PACE_MIN_MS || sent < PACE_MIN_REQUESTS) return undefined;
    return sent / ((now - first.at) / 1000);
  }
}

/** Rows per second, whole. */
const formatRowRate = (rate: number): string => String(Math.round(rate));

/**
 * The bar's width beside labels `labelWidth` wide: the line up to the end of its ETA (`ETA 1h 40m,
 * waiting for its 1/s budget`, with 3-digit window counts) stays within an 80-column terminal, so
 * a long name (futures-ledger) takes from the bar, never from the ETA.
 */
export function barSize(labelWidth: number): number {
  return Math.min(10, Math.max(4, 18 - labelWidth));
}

/**
 * `ETA 38s, waiting for its 1/s budget` while windows are open; `done` after. (The requests
 * left are a field of their own, after it.) The ETA is at the budget, or at the pace actually read
 * when that is slower (`paced`). Pure.
 */
export function etaText(p: StreamProgress, requestsPerSecond: number, paced?: number): string {
  if (remainingRequests(p) === 0) return 'done';
  const rate = paced !== undefined && paced > 0 ? Math.min(requestsPerSecond, paced) : requestsPerSecond;
  return `ETA ${formatDuration(etaSeconds(p, rate))}, waiting for its ${formatRate(requestsPerSecond)} budget`;
}

/** An error as one short line: a bar or a log line must not wrap into the next. */
function oneLine(error: string): string {
  const line = error.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
