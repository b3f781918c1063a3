import type { ReportDefinition } from '../export/report-definition.ts';
import { Html } from './html.ts';

/**
 * The request form's optional fields, by group, and which reports take each group (from the
 * report's own `accepts`). A field of the form is marked with `optionClass(group)`; the page then
 * hides it while a report that does not take it is chosen. A new field that only some reports take
 * gets a line here and the class on its label: nothing else.
 */
export const REPORT_OPTIONS = {
  coin: (report: ReportDefinition) => report.accepts.coin,
  pending: (report: ReportDefinition) => report.accepts.includePending,
  lots: (report: ReportDefinition) => report.accepts.lots === true,
  valuation: (report: ReportDefinition) => report.accepts.valuation === true,
} as const;

export type ReportOption = keyof typeof REPORT_OPTIONS;

export const optionClass = (option: ReportOption): string => `report-option option-${option}`;

// Report names go into a selector: only names that cannot break out of it (they are all kebab-case).
const SAFE_NAME = /^[a-z0-9-]+$/;

/**
 * CSS that hides each optional field while the chosen report does not take it, with no script
 * (the page's policy runs none): `:has()` sees which option of the report list is selected, and
 * updates as the choice changes. A browser without `:has()` shows every field, as before; the
 * server ignores or refuses what a report does not take either way (formInput, parseExportRequest).
 */
export function reportOptionStyle(reports: readonly ReportDefinition[]): Html {
  const rules: string[] = [];
  for (const report of reports) {
    if (!SAFE_NAME.test(report.name)) continue;
    const hidden = (Object.keys(REPORT_OPTIONS) as ReportOption[]).filter((o) => !REPORT_OPTIONS[o](report));
    if (hidden.length === 0) continue;
    const chosen = `form:has(select[name="report"] option[value="${report.name}"]:checked)`;
    rules.push(`${hidden.map((o) => `${chosen} .option-${o}`).join(',')}{display:none}`);
  }
  return new Html(`<style>@supports selector(:has(*)){${rules.join('\n')}}</style>`);
}
