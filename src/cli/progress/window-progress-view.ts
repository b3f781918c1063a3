import cliProgress from 'cli-progress';

import type { StreamProgress } from '../../ingest/coverage/window-progress.ts';

/**
 * Shows backfill progress per stream: bars on a terminal, a plain line per
 * change elsewhere (CI logs, pipes).
 */
export class WindowProgressView {
  readonly #started = Date.now();
  readonly #tty = Boolean(process.stderr.isTTY);
  readonly #multibar = this.#tty
    ? new cliProgress.MultiBar(
        {
          format:
            ' {stream} |{bar}| {value}/{total} windows | {rows} rows | {rate} rows/s | {duration_formatted} elapsed, ETA {eta_formatted} | {retries} retries{lastError}',
          hideCursor: true,
          clearOnComplete: false,
          stream: process.stderr,
        },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  readonly #bars = new Map<string, cliProgress.SingleBar>();
  #lastLine = '';

  update(progress: readonly StreamProgress[]): void {
    const seconds = Math.max((Date.now() - this.#started) / 1000, 0.001);
    for (const p of progress) {
      const payload = {
        stream: p.stream.padEnd(9),
        rows: p.rows,
        rate: Math.round(p.rows / seconds),
        retries: p.retries,
        lastError: p.lastError ? ` | last error: ${oneLine(p.lastError)}` : '',
      };
      if (this.#multibar) {
        let bar = this.#bars.get(p.stream);
        if (!bar) {
          bar = this.#multibar.create(p.total, 0, payload);
          this.#bars.set(p.stream, bar);
        }
        bar.setTotal(p.total);
        bar.update(p.done + p.failed, payload);
      }
    }
    if (!this.#multibar) {
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
}

/** An error as one short line: a bar or a log line must not wrap into the next. */
function oneLine(error: string): string {
  const line = error.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
