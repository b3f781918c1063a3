import path from 'node:path';

import { STREAM_TITLES, STREAMS } from '../streams/registry.ts';
import { beforeAfterLines } from './print-accountant.ts';
import { taxYearLines } from './print-tax-years.ts';
import type { DemoSummary } from './run-demo.ts';

/** What the demo built, for the person who ran it: phases, rows, checks, and each report it wrote. */
export function printSummary(summary: DemoSummary, exportDir: string): void {
  const { reconciliation: report } = summary;
  console.log('');
  console.log(report.summary);
  console.log('');
  const { bound, rerun } = summary;
  console.log(`ledgerline demo: ${summary.account}, ${summary.seconds.toFixed(1)} s`);
  if (rerun) {
    // A first run's bound is its requests' time; a rerun's few requests make a ratio that means nothing.
    console.log(
      `  rerun           on the history an earlier run stored: ${rerun.windows} windows read again ` +
        `(${rerun.requests} requests), ${rerun.exported} files exported again, ${rerun.kept} kept ` +
        `(their inputs as their manifests state them)`,
    );
  } else {
    console.log(
      `  bound           ${bound.seconds.toFixed(1)} s (${bound.endpoint}: ${bound.requests} requests at ${bound.perSecond}/s, ` +
        `the slowest ledger's budget); wall / bound ${(summary.seconds / bound.seconds).toFixed(2)}`,
    );
  }
  console.log(
    `  requests        ${Object.entries(bound.byEndpoint)
      .map(([endpoint, n]) => `${endpoint} ${n}`)
      .join(', ')}`,
  );
  console.log(`  phases          ${summary.phases.map(([name, s]) => `${name} ${s.toFixed(1)} s`).join(', ')}`);
  console.log(`  rows stored     ${STREAMS.map((s) => `${STREAM_TITLES[s]} ${summary.rows[s] ?? 0}`).join(', ')}`);
  const passed = report.checks.filter((c) => c.passed).length;
  console.log(`  checks          ${passed}/${report.checks.length} passed${report.passed ? '' : ' (FAILED)'}`);
  console.log(`  reports         ${path.relative(process.cwd(), exportDir) || '.'}/`);
  const label = (r: (typeof summary.reports)[number]) => (r.method ? `${r.report} --method ${r.method}` : r.report);
  const width = Math.max(...summary.reports.map((r) => label(r).length));
  for (const r of summary.reports) {
    console.log(
      `    ${label(r).padEnd(width)} ${String(r.rows).padStart(6)} rows  ${path.relative(process.cwd(), r.csvPath)}` +
        (r.unpairedLegs > 0 ? `  (${r.unpairedLegs} unpaired trade legs)` : '') +
        (r.gap ? `  (partial: ${r.gap})` : ''),
    );
  }
  for (const r of summary.reports) {
    if (!r.totals) continue;
    const t = r.totals;
    const currency = r.method === 'uk' ? 'GBP' : 'EUR';
    console.log(
      `  ${r.method} gains       ${t.rows} rows (${t.mismatches} with gain != proceeds - cost, ${t.unpriced} unpriced): ` +
        `proceeds ${t.proceeds}, costs ${t.costs}, gain ${t.gain} ${currency}`,
    );
  }
  for (const line of taxYearLines(summary.reports)) console.log(line);
  const { supplied, after } = summary.accountant;
  for (const line of beforeAfterLines(summary.reports, after, supplied)) console.log(line);
}

/** A rules report whose rows do not add up (gain != proceeds - cost) fails the demo like a failed check. */
export function rulesMismatched(summary: DemoSummary): boolean {
  return summary.reports.some((r) => (r.totals?.mismatches ?? 0) > 0);
}
