import type { DateTime } from 'luxon';
import pLimit from 'p-limit';
import type pg from 'pg';

import type { RulesMethod } from '../accounting/gains/gains-method.ts';
import { taxYearsOf } from '../accounting/gains/tax-years.ts';
import type { AccountSummary } from '../accounts/account-service.ts';
import type { Config } from '../config/config.ts';
import { exportCovered } from '../export/export-covered.ts';
import { parseExportRequest } from '../export/export-request.ts';
import { reportByName, REPORTS } from '../export/reports/index.ts';
import type { Stream } from '../streams/registry.ts';
import type { DemoExportWorkers, ExportConfig } from './demo-export-workers.ts';
import { demoInputs, unchangedReport } from './demo-inputs.ts';
import { type RulesTotals, rulesTotals } from './demo-rules-totals.ts';
import { type DeYearFigures, deYearFigures, type UkYearFigures, ukYearFigures } from './demo-tax-figures.ts';
import { coveredFrom, type LocalPeriod, taxYearsPeriod } from './demo-tax-years.ts';

export interface WrittenReport {
  report: string;
  /** uk or de: the report made under a jurisdiction's rules (and its currency). */
  method?: RulesMethod;
  /** realized-gains under uk or de: its totals, every row checked (gain = proceeds - cost). */
  totals?: RulesTotals;
  /** Rows flagged for review, per flag (the manifest's `review`: unknown-cost, disposal-exceeds-holdings...). */
  review: Record<string, number>;
  period: LocalPeriod;
  /** realized-gains-summary under uk or de: each tax year's filing figures, as the file states them. */
  years?: { uk: UkYearFigures[] } | { de: DeYearFigures[] };
  rows: number;
  /** Trade legs the tax-tool files could not pair (0 on the simulator's data). */
  unpairedLegs: number;
  /** The first gap in the coverage of the period, when the file is partial. */
  gap: string | undefined;
  csvPath: string;
}

/**
 * Groups exported side by side (in two threads, demo-export-workers.ts): the three gains walks
 * (fifo, uk, de) at once, and one more; more would only queue for the machine's cores and Postgres's.
 */
const EXPORTS_AT_ONCE = 4;

/** The reports made from the gains walk: of one method and period, they read one walk together. */
const GAINS_WALK_REPORTS = new Set(['realized-gains', 'realized-gains-summary', 'income', 'income-summary']);

/** Files that are not gains walks but weigh like one (every wallet's records in one file, or many rows). */
const HEAVY_FILES: Readonly<Record<string, number>> = {
  cointracking: 4,
  koinly: 1.5,
  'koinly-futures': 1,
  beancount: 1,
};

/**
 * A group's work, roughly, in the demo's own measure (node CPU of its files, in seconds, on the demo's
 * year): a gains walk 2, each file of it 0.5 more, the German gains file, which writes every lot part
 * of every sale, 2 more; another file 0.3. The threads share the groups by it, the heaviest first.
 */
function weightOf(group: { runs: readonly DemoRun[]; walk: boolean }): number {
  if (!group.walk) return group.runs.reduce((n, r) => n + (HEAVY_FILES[r.report] ?? 0.3), 0);
  const german = group.runs.some((r) => r.report === 'realized-gains' && r.method === 'de');
  return 2 + 0.5 * group.runs.length + (german ? 2 : 0);
}

export interface DemoRun {
  report: string;
  method?: RulesMethod;
  period: LocalPeriod;
}

/** Files exported together: one file, or the files of one gains walk (they share it). */
interface ExportGroup {
  runs: DemoRun[];
  /** The histories the files read: the group starts once each is complete. */
  streams: ReadonlySet<Stream>;
  /** Whether the files value coins through the price book (the prices must be loaded first). */
  valued: boolean;
  /** The files of one gains walk (they read supplied costs and proceeds). */
  walk: boolean;
  written?: Promise<WrittenReport[]>;
}

/**
 * The demo's files: every report over the demo's last twelve months (UTC), then the gains and
 * income summaries under UK and German rules over the tax years the history touches, in the rules'
 * own zone (demo-tax-years.ts), valued in pounds and euros through the imported (synthetic) fiat
 * series. Each file is written into EXPORT_DIR with its manifest as soon as what it reads is
 * complete: a file of the spot history while the futures ledger is still being read (the backfill
 * waits on the exchange's budgets, not on the machine), the gains files once every history is.
 */
export class DemoExports {
  /** Every file, in the order the closing note lists them. */
  readonly #runs: DemoRun[] = [];
  readonly #groups: ExportGroup[] = [];
  readonly #limit = pLimit(EXPORTS_AT_ONCE);
  /** Gains files whose walk has read the supplied costs and proceeds, and who waits for all of them. */
  #inputsRead = 0;
  #allInputsRead: (() => void) | undefined;
  #exported = 0;
  #kept = 0;
  #rulesAdded = false;

  constructor(
    private readonly config: Config,
    private readonly account: Pick<AccountSummary, 'id' | 'name'>,
    private readonly day: DateTime,
    private readonly workers: DemoExportWorkers,
    /** The demo's database: with it, files whose inputs did not change since a run wrote them are kept. */
    private readonly pool?: pg.Pool,
  ) {
    const from = day.minus({ days: 365 }).toISODate()!;
    const to = day.minus({ days: 1 }).toISODate()!;
    this.#add(REPORTS.map((r) => ({ report: r.name, period: { from, to, tz: 'UTC' } })));
  }

  /** The UK and German files, over the tax years the stored history covers (known once it is stored). */
  async addRulesFiles(): Promise<void> {
    if (this.#rulesAdded) return;
    this.#rulesAdded = true;
    const runs: DemoRun[] = [];
    for (const method of ['uk', 'de'] as const) {
      const queryFrom = taxYearsOf(method, this.day.minus({ days: 400 }).toMillis(), this.day.toMillis())[0]!.startMs;
      const covered = await coveredFrom(this.config.databaseUrl, this.account.id, queryFrom, this.day.toMillis());
      const period = taxYearsPeriod(method, covered, this.day.toMillis());
      for (const report of ['realized-gains', 'realized-gains-summary', 'income-summary']) {
        runs.push({ report, method, period });
      }
    }
    this.#runs.push(...runs);
    this.#groups.push(...this.#grouped(runs));
    // The walks are the longest: started first, they do not end the batch alone; and all of them start
    // at once, before gainsFiles() can resolve (an import made then must reach none of them).
    this.#groups.sort((a, b) => weightOf(b) - weightOf(a));
  }

  /**
   * Starts every file not started whose histories are all in `complete` (and, for a file valuing
   * coins, once `pricesLoaded`); returns how many files it started.
   */
  startReady(complete: ReadonlySet<Stream>, pricesLoaded: boolean): number {
    let started = 0;
    for (const group of this.#groups) {
      if (group.written !== undefined || (group.valued && !pricesLoaded)) continue;
      if (![...group.streams].every((s) => complete.has(s))) continue;
      group.written = this.#limit(() => this.write(group.runs, this.config.exportDir, () => this.#readInputs()));
      // Read (and its failure reported) by `written`; until then a failure must not go unhandled.
      group.written.catch(() => undefined);
      started += group.runs.length;
    }
    return started;
  }

  /**
   * Once every gains file (all started) reads a walk that has read the supplied costs and proceeds,
   * or has ended: an import made from then on changes none of them, and their "after" files can be
   * walked beside them.
   */
  async gainsInputsRead(): Promise<void> {
    const groups = this.#groups.filter((g) => g.walk);
    const files = groups.reduce((n, g) => n + g.runs.length, 0);
    const read = new Promise<void>((resolve) => {
      this.#allInputsRead = () => {
        if (this.#inputsRead >= files) resolve();
      };
      this.#allInputsRead();
    });
    await Promise.race([read, Promise.allSettled(groups.map((g) => this.#writtenOf(g)))]);
  }

  #readInputs(): void {
    this.#inputsRead++;
    this.#allInputsRead?.();
  }

  /** The filing summaries under uk and de (the files an accountant's figures change). */
  rulesSummaries(): DemoRun[] {
    return this.#runs.filter((r) => r.report === 'realized-gains-summary' && r.method !== undefined);
  }

  /**
   * The files of the gains walks (fifo, uk, de), once written: the files that read supplied costs and
   * proceeds, so an import made after this changes none of them.
   */
  async gainsFiles(): Promise<WrittenReport[]> {
    const groups = this.#groups.filter((g) => g.walk);
    return (await Promise.all(groups.map((g) => this.#writtenOf(g)))).flat();
  }

  /**
   * Every file, in the order of REPORTS then the rules' files, once all are written; the summaries
   * under uk and de read back for the closing note.
   */
  async written(): Promise<WrittenReport[]> {
    const byRun = new Map<DemoRun, WrittenReport>();
    for (const group of this.#groups) {
      const written = await this.#writtenOf(group);
      group.runs.forEach((run, i) => byRun.set(run, written[i]!));
    }
    const written = this.#runs.map((run) => byRun.get(run)!);
    // The German figures take the income summary's verdict on section 22 no. 3 beside the summary's own.
    for (const r of written) {
      if (r.report !== 'realized-gains-summary' || r.method === undefined) continue;
      if (r.method === 'uk') r.years = { uk: await ukYearFigures(r.csvPath) };
      else {
        const income = written.find((w) => w.report === 'income-summary' && w.method === 'de')!;
        r.years = { de: await deYearFigures(r.csvPath, income.csvPath) };
      }
    }
    return written;
  }

  /**
   * Writes files side by side in one of the export threads, sharing their gains walks; with the
   * database's pool, each file's manifest states its inputs (demo-inputs.ts), and a group whose
   * files an earlier run wrote from the same inputs is kept as written (a rerun).
   */
  async write(
    runs: DemoRun[],
    exportDir: string,
    onInputsRead: () => void = () => undefined,
  ): Promise<WrittenReport[]> {
    const config = { databaseUrl: this.config.databaseUrl, valuation: this.config.valuation };
    const inputs = this.pool
      ? await Promise.all(runs.map((run) => demoInputs(this.pool!, this.account.id, run, config.valuation)))
      : undefined;
    if (inputs !== undefined) {
      const kept = await Promise.all(
        runs.map((run, i) => unchangedReport(exportDir, this.account.id, run, inputs[i]!)),
      );
      if (kept.every((r) => r !== undefined)) {
        // What the files read is as it was: the inputs are "read" (an import from now on reaches none).
        for (const _ of runs) onInputsRead();
        this.#kept += runs.length;
        return kept;
      }
    }
    this.#exported += runs.length;
    return this.workers.write(
      { runs, inputs, config, account: { id: this.account.id, name: this.account.name }, exportDir },
      onInputsRead,
      weightOf({ runs, walk: runs.some((r) => GAINS_WALK_REPORTS.has(r.report)) }),
    );
  }

  /** Files written by this run, and files kept as an earlier run wrote them (their inputs unchanged). */
  counts(): { exported: number; kept: number } {
    return { exported: this.#exported, kept: this.#kept };
  }

  #writtenOf(group: ExportGroup): Promise<WrittenReport[]> {
    if (group.written === undefined) {
      throw new Error(`demo export ${group.runs[0]!.report} was never started: its histories were not complete`);
    }
    return group.written;
  }

  #add(runs: DemoRun[]): void {
    this.#runs.push(...runs);
    this.#groups.push(...this.#grouped(runs));
  }

  /** The files of one gains walk (one method and period) in one group, every other file alone. */
  #grouped(runs: DemoRun[]): ExportGroup[] {
    const groups = new Map<string, ExportGroup>();
    for (const run of runs) {
      const walk = GAINS_WALK_REPORTS.has(run.report);
      const key = walk ? `walk:${run.method ?? 'fifo'}` : `file:${run.report}`;
      const report = reportByName(run.report);
      const group = groups.get(key) ?? { runs: [], streams: new Set<Stream>(), valued: false, walk };
      group.runs.push(run);
      // A file taking futures results from closed positions checks that history too (closed-positions-span.ts).
      const positions: Stream[] = report.closedPositionsBeforeLedger ? ['positions'] : [];
      group.streams = new Set([...group.streams, ...report.streams, ...positions]);
      group.valued ||= report.accepts.valuation === true;
      groups.set(key, group);
    }
    return [...groups.values()];
  }
}

/** One report of the demo's, as `ledgerline export` would write it into `exportDir`, read back. */
export async function exportReport(
  config: ExportConfig,
  account: { id: string; name: string },
  { report, method, period }: { report: string; method?: RulesMethod; period: LocalPeriod },
  exportDir: string,
  /** The fingerprint of the file's inputs (demo-inputs.ts), stated in its manifest. */
  inputs?: string,
): Promise<WrittenReport> {
  const request = parseExportRequest({ report, accountId: account.id, ...period, method });
  // The positions older than the exchange's 3-month horizon were never readable: those files are
  // exported as partial (what --allow-partial does), and say so.
  const { manifest, gap, csvPath } = await exportCovered({
    databaseUrl: config.databaseUrl,
    exportDir,
    request,
    account,
    partial: 'mark',
    valuation: config.valuation,
    inputs,
  });
  const totals = method !== undefined && report === 'realized-gains' ? await rulesTotals(csvPath) : undefined;
  return {
    report,
    method,
    totals,
    review: manifest.review.values,
    period,
    rows: manifest.rowCount,
    unpairedLegs: manifest.unpairedLegs,
    gap,
    csvPath,
  };
}
