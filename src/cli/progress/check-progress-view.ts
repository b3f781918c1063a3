import cliProgress from 'cli-progress';

import type { CheckName, CheckResult } from '../../reconcile/report-types.ts';

/**
 * Shows a reconciliation's progress check by check on stderr (stdout keeps the report, or
 * the JSON): a bar with the elapsed time on a terminal, one line per finished check elsewhere.
 */
export class CheckProgressView {
  readonly #started = Date.now();
  readonly #bar = process.stderr.isTTY
    ? new cliProgress.SingleBar(
        {
          format: ' reconcile |{bar}| {value}/{total} checks | {check} | {duration_formatted} elapsed',
          hideCursor: true,
          clearOnComplete: false,
          stream: process.stderr,
        },
        cliProgress.Presets.shades_classic,
      )
    : undefined;

  update(name: CheckName, index: number, total: number, result?: CheckResult): void {
    if (this.#bar) {
      if (index === 0 && !result) this.#bar.start(total, 0, { check: name });
      this.#bar.update(result ? index + 1 : index, { check: result ? `${name} ${verdict(result)}` : `${name}...` });
      return;
    }
    if (!result) return;
    const seconds = ((Date.now() - this.#started) / 1000).toFixed(1);
    process.stderr.write(`reconcile: check ${index + 1}/${total} ${name} ${verdict(result)} (${seconds} s)\n`);
  }

  stop(): void {
    this.#bar?.stop();
  }
}

const verdict = (result: CheckResult) => (result.passed ? 'passed' : 'FAILED');
