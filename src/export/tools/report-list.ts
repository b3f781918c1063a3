import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { markedBlock, replaceMarkedBlock } from '../../exchange/tools/doc-blocks.ts';
import { normalizeBlock } from '../../streams/tools/endpoint-table.ts';
import { REPORTS } from '../reports/index.ts';

/**
 * The list of reports in docs/cli.md, written from the registry (src/export/reports/index.ts), as
 * the CLI's `--report` help and the web page read it: a report added there (a wallet ledger's
 * `koinly-<wallet>` included) is listed without a hand edit. `npx tsx src/export/tools/report-list.ts`
 * rewrites the block; `--check` only says whether it is current (exit 1 if not).
 * test/export/report-list.unit.test.ts runs the same comparison.
 */
export const REPORT_LIST_BLOCK = 'report-list';
export const CLI_DOC = path.resolve(import.meta.dirname, '../../../docs/cli.md');

const HEADER = ['Report', 'Title', 'What it holds'];

/** The table, one row per report in the registry's order, aligned as Prettier aligns it. */
export function renderReportList(): string {
  const rows = [HEADER, ...REPORTS.map((r) => [`\`${r.name}\``, r.title, r.description.replace(/\|/g, '\\|')])];
  const widths = HEADER.map((_, column) => Math.max(3, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  const separator = `| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`;
  return [line(HEADER), separator, ...rows.slice(1).map(line)].join('\n');
}

/** Whether the doc's block lists what the registry holds. */
export function reportListIsCurrent(docText: string): boolean {
  const documented = normalizeBlock(markedBlock(docText, REPORT_LIST_BLOCK));
  return JSON.stringify(documented) === JSON.stringify(normalizeBlock(renderReportList()));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const docText = readFileSync(CLI_DOC, 'utf8');
  const shown = path.relative(process.cwd(), CLI_DOC);
  if (process.argv.includes('--check')) {
    const current = reportListIsCurrent(docText);
    console.log(current ? `${shown}: report list is current` : `${shown}: report list differs from the registry`);
    process.exitCode = current ? 0 : 1;
  } else {
    writeFileSync(CLI_DOC, replaceMarkedBlock(docText, REPORT_LIST_BLOCK, renderReportList()));
    console.log(`${shown}: report list written from the registry`);
  }
}
