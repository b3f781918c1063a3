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
          format: ' {stream} |{bar}| {value}/{total} windows | {rows} rows | {rate} rows/s',
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
      const payload = { stream: p.stream.padEnd(9), rows: p.rows, rate: Math.round(p.rows / seconds) };
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
          (p) => `${p.stream} ${p.done}/${p.total} windows${p.failed ? ` (${p.failed} failed)` : ''}, ${p.rows} rows`,
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
