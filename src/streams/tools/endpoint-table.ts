import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { PER_IP_PER_MINUTE } from '../../exchange/index.ts';
import { EXCHANGE_API_DOC, markedBlock, replaceMarkedBlock } from '../../exchange/tools/doc-blocks.ts';
import { ALL_ENDPOINTS } from '../endpoints.ts';

/**
 * The endpoint table of docs/exchange-api.md §4.1, written from every endpoint
 * (src/exchange/endpoints.ts and each stream's endpoint.ts, joined in
 * src/streams/endpoints.ts) so the documented surface cannot drift from the one
 * the client and the rate budget use. `npx tsx src/streams/tools/endpoint-table.ts` rewrites the
 * block in the doc; `--check` only says whether it is current (exit 1 if not).
 * test/exchange/endpoint-table.unit.test.ts runs the same comparison.
 */

export const ENDPOINT_TABLE_BLOCK = 'endpoint-table';

const HEADER = ['Endpoint', 'Client method', 'HTTP', 'Path', 'Rate limit', 'Keyed by', 'Signed'];

/** One row per endpoint: the core ones in the order of src/exchange/endpoints.ts, then the streams'. */
export function endpointTableRows(): string[][] {
  return ALL_ENDPOINTS.map((spec) => {
    return [
      spec.path.slice(spec.path.lastIndexOf('/') + 1),
      `\`${spec.name}\``,
      spec.method,
      `\`${spec.path}\``,
      `${spec.perSecond} / s`,
      spec.keyedBy === 'uid' ? 'UID' : 'IP',
      spec.signed ? 'yes' : 'no (public)',
    ];
  });
}

/** The whole block: the table, aligned as Prettier aligns it, and the budget shared by all rows. */
export function renderEndpointBlock(): string {
  const rows = [HEADER, ...endpointTableRows()];
  const widths = HEADER.map((_, column) => Math.max(3, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  const separator = `| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`;
  const table = [line(HEADER), separator, ...rows.slice(1).map(line)].join('\n');
  return `${table}\n\nOn top of every row: ${PER_IP_PER_MINUTE} requests per IP per minute, all endpoints together (§4.4).`;
}

/**
 * The block reduced to what it says: table rows as trimmed cells joined by
 * ` | `, separator rows dropped, other lines with their spaces collapsed. Two
 * blocks that differ only in padding or line wrapping normalize alike.
 */
export function normalizeBlock(block: string): string[] {
  return block
    .split('\n')
    .map((raw) => raw.trim())
    .filter((text) => text !== '')
    .filter((text) => !/^\|(\s*:?-+:?\s*\|)+$/.test(text))
    .map((text) =>
      text.startsWith('|')
        ? text
            .slice(1, -1)
            .split('|')
            .map((cell) => cell.trim())
            .join(' | ')
        : text.replace(/\s+/g, ' '),
    );
}

/** Whether the doc's block says what the endpoint declarations say. */
export function endpointBlockIsCurrent(docText: string): boolean {
  const documented = normalizeBlock(markedBlock(docText, ENDPOINT_TABLE_BLOCK));
  return JSON.stringify(documented) === JSON.stringify(normalizeBlock(renderEndpointBlock()));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const docText = readFileSync(EXCHANGE_API_DOC, 'utf8');
  const shown = path.relative(process.cwd(), EXCHANGE_API_DOC);
  if (process.argv.includes('--check')) {
    const current = endpointBlockIsCurrent(docText);
    console.log(
      current
        ? `${shown}: endpoint table is current`
        : `${shown}: endpoint table differs from the endpoint declarations`,
    );
    process.exitCode = current ? 0 : 1;
  } else {
    writeFileSync(EXCHANGE_API_DOC, replaceMarkedBlock(docText, ENDPOINT_TABLE_BLOCK, renderEndpointBlock()));
    console.log(`${shown}: endpoint table written from the endpoint declarations`);
  }
}
