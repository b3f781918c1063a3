import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { EXCHANGE_API_DOC, markedBlock, replaceMarkedBlock } from '../../exchange/tools/doc-blocks.ts';
import type { Columns } from '../kit/columns.ts';
import { STREAM_DEFINITIONS, STREAMS } from '../registry.ts';
import { normalizeBlock } from './endpoint-table.ts';

/**
 * The table of docs/exchange-api.md §1.5, written from each stream's columns: which fields of a
 * history record the copy cannot do without (refused when missing or garbled) and which it reads
 * as null when absent (counted as drift). `npx tsx src/streams/tools/core-fields-table.ts`
 * rewrites the block; `--check` only says whether it is current (exit 1 if not).
 * test/exchange/core-fields-table.unit.test.ts runs the same comparison.
 */
export const CORE_FIELDS_BLOCK = 'core-fields';

const HEADER = ['Stream', 'Endpoint', 'Core: the page is refused without', 'Read as null when absent (drift)'];

const spelled = (columns: Columns, core: boolean) =>
  Object.entries(columns)
    .filter(([, field]) => field.core === core)
    .map(([name, field]) => [name, ...(field.aliases ?? [])].map((s) => `\`${s}\``).join('/'))
    .join(', ') || 'none';

export function coreFieldRows(): string[][] {
  return STREAMS.map((stream) => {
    const definition = STREAM_DEFINITIONS[stream];
    const endpoint = definition.endpoint.path.slice(definition.endpoint.path.lastIndexOf('/') + 1);
    return [stream, endpoint, spelled(definition.columns, true), spelled(definition.columns, false)];
  });
}

export function renderCoreFieldsBlock(): string {
  const rows = [HEADER, ...coreFieldRows()];
  const widths = HEADER.map((_, column) => Math.max(3, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  const separator = `| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`;
  return [line(HEADER), separator, ...rows.slice(1).map(line)].join('\n');
}

export function coreFieldsBlockIsCurrent(docText: string): boolean {
  const documented = normalizeBlock(markedBlock(docText, CORE_FIELDS_BLOCK));
  return JSON.stringify(documented) === JSON.stringify(normalizeBlock(renderCoreFieldsBlock()));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const docText = readFileSync(EXCHANGE_API_DOC, 'utf8');
  const shown = path.relative(process.cwd(), EXCHANGE_API_DOC);
  if (process.argv.includes('--check')) {
    const current = coreFieldsBlockIsCurrent(docText);
    console.log(
      current ? `${shown}: core-fields table is current` : `${shown}: core-fields table differs from the columns`,
    );
    process.exitCode = current ? 0 : 1;
  } else {
    writeFileSync(EXCHANGE_API_DOC, replaceMarkedBlock(docText, CORE_FIELDS_BLOCK, renderCoreFieldsBlock()));
    console.log(`${shown}: core-fields table written from the streams' columns`);
  }
}
