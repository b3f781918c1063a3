import type { StreamProgress } from '../ingest/coverage/window-progress.ts';
import { type Stream, streamDefinition } from '../streams/registry.ts';
import type { DemoExports } from './demo-exports.ts';

/**
 * What the demo does while its backfill is still reading: the backfill waits on the exchange's
 * budgets (the futures ledger's 1 request a second), not on the machine, so each history's files are
 * written as soon as that history is complete, and the prices loaded as soon as the spot history is
 * (its trades imply prices; the files that value coins wait for them). Told of each progress read;
 * the work runs one step after another, and its lines are kept for after the progress bars.
 */
export class EarlyWork {
  readonly #complete = new Set<Stream>();
  readonly #lines: string[] = [];
  #chain: Promise<void> = Promise.resolve();
  #failure: { error: unknown } | undefined;
  #pricesLoaded = false;
  #filesStarted = 0;

  constructor(
    private readonly pool: { query(sql: string): Promise<unknown> },
    private readonly exports: Pick<DemoExports, 'startReady'> & Partial<Pick<DemoExports, 'addRulesFiles'>>,
    /** Loads the prices; returns the line that says what it loaded. */
    private readonly loadPrices: () => Promise<string>,
  ) {}

  /** The backfill's progress: the streams whose windows are all read start their work. */
  progressed(progress: readonly StreamProgress[]): void {
    const newly = progress
      .filter((p) => p.total > 0 && p.done === p.total && !this.#complete.has(p.stream))
      .map((p) => p.stream);
    if (newly.length === 0) return;
    for (const stream of newly) this.#complete.add(stream);
    const stillReading = progress.some((p) => p.done + p.failed < p.total);
    this.#chain = this.#chain
      .then(async () => {
        // The files' plans need the statistics of a table filled seconds ago (analyze-histories.ts).
        const tables = [...new Set(newly.map((s) => streamDefinition(s).table.table))];
        await this.pool.query(`ANALYZE ${tables.join(', ')}`);
        if (!this.#pricesLoaded && this.#complete.has('spot')) await this.#loadPrices();
        // Every history complete: the rules' files (their tax years known now) start with the others,
        // the heaviest first, not after the backfill's last bookkeeping.
        if (!stillReading) await this.exports.addRulesFiles?.();
        const started = this.exports.startReady(this.#complete, this.#pricesLoaded);
        if (stillReading) this.#filesStarted += started;
      })
      .catch((error: unknown) => {
        this.#failure ??= { error };
      });
  }

  /**
   * Once the backfill is done: the early work finished (the prices loaded if they were not yet), its
   * lines, and how many files it started while the backfill was still reading.
   */
  async finished(): Promise<{ lines: string[]; filesStarted: number }> {
    await this.#chain;
    if (this.#failure) throw this.#failure.error;
    if (!this.#pricesLoaded) await this.#loadPrices();
    return { lines: this.#lines, filesStarted: this.#filesStarted };
  }

  async #loadPrices(): Promise<void> {
    this.#lines.push(await this.loadPrices());
    this.#pricesLoaded = true;
  }
}
