import { instant } from './describe.ts';
import type { RecountMode } from './recount-mode.ts';
import { CHECK_TITLES, type CheckResult } from './report-types.ts';

export interface ReportHeading {
  accountName: string;
  recount: RecountMode;
  /** A full check (the whole history) rather than a nightly one. */
  full?: boolean;
  startedAt: Date;
  finishedAt: Date;
}

const TITLE_WIDTH = Math.max(...Object.values(CHECK_TITLES).map((t) => t.length));

/** Failure lines printed per check; the report row's findings keep them all. */
export const FAILURES_PRINTED = 50;

/**
 * The readable summary: a heading with the verdict, one line per check
 * (PASS/FAIL, its title, what it examined), then every failure line, each
 * naming what failed, then the notes.
 */
export function formatReport(heading: ReportHeading, checks: readonly CheckResult[]): string {
  const failed = checks.filter((c) => !c.passed);
  const seconds = ((heading.finishedAt.getTime() - heading.startedAt.getTime()) / 1000).toFixed(1);
  const lines = [
    `Reconciliation of account ${heading.accountName} at ${instant(heading.startedAt.getTime())} ` +
      `(recount: ${heading.recount}${heading.full ? ', full check' : ''}, ${seconds} s): ` +
      (failed.length === 0
        ? `PASSED, all ${checks.length} checks`
        : `FAILED, ${failed.length} of ${checks.length} checks`),
  ];
  for (const check of checks) {
    lines.push(`${check.passed ? 'PASS' : 'FAIL'}  ${CHECK_TITLES[check.name].padEnd(TITLE_WIDTH)}  ${check.examined}`);
  }
  if (failed.length > 0) {
    lines.push('', 'Failures:');
    for (const check of failed) {
      if (check.error !== undefined && !check.failures.some((f) => f.includes(check.error!))) {
        lines.push(`  ${CHECK_TITLES[check.name]}: could not finish: ${check.error}`);
      }
      for (const failure of check.failures.slice(0, FAILURES_PRINTED))
        lines.push(`  ${CHECK_TITLES[check.name]}: ${failure}`);
      if (check.failures.length > FAILURES_PRINTED) {
        lines.push(
          `  ${CHECK_TITLES[check.name]}: ... and ${check.failures.length - FAILURES_PRINTED} more (see the report row)`,
        );
      }
    }
  }
  const notes = checks.flatMap((c) => c.notes.map((n) => `  ${CHECK_TITLES[c.name]}: ${n}`));
  if (notes.length > 0) lines.push('', 'Notes:', ...notes);
  return lines.join('\n');
}
