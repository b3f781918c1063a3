import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { markedBlock } from '../../src/exchange/tools/doc-blocks.ts';
import { REPORTS } from '../../src/export/reports/index.ts';
import {
  CLI_DOC,
  renderReportList,
  REPORT_LIST_BLOCK,
  reportListIsCurrent,
} from '../../src/export/tools/report-list.ts';
import { normalizeBlock } from '../../src/streams/tools/endpoint-table.ts';

const doc = readFileSync(CLI_DOC, 'utf8');

describe('the report list of docs/cli.md', () => {
  it('lists what the registry holds (regenerate with npx tsx src/export/tools/report-list.ts)', () => {
    expect(normalizeBlock(markedBlock(doc, REPORT_LIST_BLOCK))).toEqual(normalizeBlock(renderReportList()));
    expect(reportListIsCurrent(doc)).toBe(true);
  });

  it('names every report, the wallet ledgers’ Koinly files among them', () => {
    const block = markedBlock(doc, REPORT_LIST_BLOCK);
    for (const report of REPORTS) expect(block, report.name).toContain(`\`${report.name}\``);
    expect(block).toContain('`koinly-margin`');
    expect(block).toContain('`koinly-p2p`');
  });
});
