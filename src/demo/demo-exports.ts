import type { DateTime } from 'luxon';
import pLimit from 'p-limit';

import type { RulesMethod } from '../accounting/gains/gains-method.ts';
import { taxYearsOf } from '../accounting/gains/tax-years.ts';
import type { AccountSummary } from '../accounts/account-service.ts';
import type { Config } from '../config/config.ts';
import { exportCovered } from '../export/export-covered.ts';
import { parseExportRequest } from '../export/export-request.ts';
import { REPORTS } from '../export/reports/index.ts';
import { sharingGainsWalks } from '../export/reports/shared-gains-walks.ts';
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

/** Walks exported side by side: more would only queue for the machine's cores and Postgres's. */
const EXPORTS_AT_ONCE = 3;

/** The reports made from the gains walk: of one method and period, they read one walk together. */
const GAINS_WALK_REPORTS = new Set(['realized-gains', 'realized-gains-summary', 'income', 'income-summary']);

function settledValue<T>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

/**
 * Every report over the demo's last twelve months (UTC), written into EXPORT_DIR with its manifest;
 * then the gains and income summaries under UK and German rules over the tax years the history
 * touches, in the rules' own zone (demo-tax-years.ts), each summary read back for the closing note.
 */
export async function exportDemoReports(
  config: Config,
  account: AccountSummary,
  day: DateTime,
): Promise<WrittenReport[]> {
  const from = day.minus({ days: 365 }).toISODate()!;
  const to = day.minus({ days: 1 }).toISODate()!;
  // Every report as installed, then the gains and income summaries under UK and German rules, valued
  // in pounds and euros through the imported (synthetic) fiat series.
  const runs: { report: string; method?: RulesMethod; period: LocalPeriod }[] = REPORTS.map((r) => ({
    report: r.name,
    period: { from, to, tz: 'UTC' },
  }));
  for (const method of ['uk', 'de'] as const) {
    const queryFrom = taxYearsOf(method, day.minus({ days: 400 }).toMillis(), day.toMillis())[0]!.startMs;
    const covered = await coveredFrom(config.databaseUrl, account.id, queryFrom, day.toMillis());
    const period = taxYearsPeriod(method, covered, day.toMillis());
    for (const report of ['realized-gains', 'realized-gains-summary', 'income-summary']) {
      runs.push({ report, method, period });
    }
  }
  // A few walks at once: each is one database query streamed through Node, so side by side they
  // keep both Postgres and Node busy instead of taking turns (the order printed stays). The files of
  // one walk (a method's gains, summary and income) start together and read that walk once
  // (shared-gains-walks.ts); the rules' walks are the longest, so they start first.
  const limit = pLimit(EXPORTS_AT_ONCE);
  const walkOf = (run: (typeof runs)[number]) =>
    GAINS_WALK_REPORTS.has(run.report) ? `${run.method ?? 'fifo'}` : `file:${run.report}`;
  const groups = new Map<string, (typeof runs)[number][]>();
  for (const run of [...runs.filter((r) => r.method), ...runs.filter((r) => !r.method)]) {
    groups.set(walkOf(run), [...(groups.get(walkOf(run)) ?? []), run]);
  }
  const started = new Map<(typeof runs)[number], Promise<WrittenReport>>();
  await sharingGainsWalks(async () => {
    for (const group of groups.values()) {
      const slot = limit(() =>
        Promise.allSettled(group.map((run) => exportReport(config, account, run, config.exportDir))),
      );
      group.forEach((run, i) =>
        started.set(
          run,
          slot.then((results) => settledValue(results[i]!)),
        ),
      );
    }
    await Promise.allSettled(started.values());
  });
  const written = await Promise.all(runs.map((run) => started.get(run)!));
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

/** One report of the demo's, as `ledgerline export` would write it into `exportDir`, read back. */
export async function exportReport(
  config: Config,
  account: AccountSummary,
  { report, method, period }: { report: string; method?: RulesMethod; period: LocalPeriod },
  exportDir: string,
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
