import cliProgress from 'cli-progress';

import type { Config } from '../../config/config.ts';
import type { StreamProgress } from '../../ingest/coverage/window-progress.ts';
import { STREAM_DEFINITIONS } from '../../streams/registry.ts';
import { etaSeconds, formatDuration, formatRate, remainingRequests } from './eta.ts';

/**
 * Shows backfill progress per stream: bars on a terminal, a plain line per
 * change elsewhere (CI logs, pipes).
 *
 * The ETA is the stream's remaining requests at its budget (the endpoint's requests per second
 * times EXCHANGE_RATE_FACTOR), not an extrapolation of rows: a spot backfill spends nearly all its
 * time waiting for its turn in a 1/s budget, which is expected and shown as waiting, never as
 * retries. Retries count only failed requests and restarts (the windows' attempts).
 */
/** One stream's bar (cli-progress tokens; the payload's own are named in `update`). */
export const BAR_FORMAT =
  ' {stream} |{bar}| {value}/{total} windows | {etaText} | {requests}{rows} rows | {rate} rows/s | {elapsed} elapsed{retries}{lastError}';

export class WindowProgressView {
  readonly #started = Date.now();
  readonly #tty = Boolean(process.stderr.isTTY);
  #multibar: cliProgress.MultiBar | undefined;
  #labelWidth = 0;
  readonly #bars = new Map<string, cliProgress.SingleBar>();
  #lastLine = '';

  constructor(private readonly config: Pick<Config, 'exchangeRateFactor'>) {}

  /** The bars, made at the first update, when the streams shown (and so their labels) are known. */
  private bars(progress: readonly StreamProgress[]): cliProgress.MultiBar | undefined {
    if (!this.#tty) return undefined;
    if (!this.#multibar) {
      // The names shown line up, padded to the longest of them.
      this.#labelWidth = Math.max(4, ...progress.map((p) => p.stream.length));
      this.#multibar = new cliProgress.MultiBar(
        {
          // `etaText`, never `eta`: cli-progress fills its own `{eta}` (and `{duration}`, `{value}`...)
          // after the payload, so a payload `eta` came out as the library's bare number, NULL or INF.
          // The ETA and its reason come early, in a bar sized by barSize, so an 80-column terminal
          // (cli-progress cuts a line at the terminal's width) still shows them whole.
          format: BAR_FORMAT,
          barsize: barSize(this.#labelWidth),
          hideCursor: true,
          clearOnComplete: false,
          stream: process.stderr,
        },
        cliProgress.Presets.shades_classic,
      );
    }
    return this.#multibar;
  }

  update(progress: readonly StreamProgress[]): void {
    const multibar = this.bars(progress);
    const seconds = Math.max((Date.now() - this.#started) / 1000, 0.001);
    for (const p of progress) {
      const payload = {
        stream: p.stream.padEnd(this.#labelWidth),
        rows: p.rows,
        rate: Math.round(p.rows / seconds),
        elapsed: formatDuration(seconds),
        etaText: etaText(p, this.requestsPerSecond(p)),
        requests: remainingRequests(p) > 0 ? `~${remainingRequests(p)} requests left | ` : '',
        retries: p.retries ? ` | ${p.retries} retries` : '',
        lastError: p.lastError ? ` | last error: ${oneLine(p.lastError)}` : '',
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
}

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
 * left are a field of their own, after it: see the bar's format.) Pure.
 */
export function etaText(p: StreamProgress, requestsPerSecond: number): string {
  if (remainingRequests(p) === 0) return 'done';
  return `ETA ${formatDuration(etaSeconds(p, requestsPerSecond))}, waiting for its ${formatRate(requestsPerSecond)} budget`;
}

/** An error as one short line: a bar or a log line must not wrap into the next. */
function oneLine(error: string): string {
  const line = error.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
