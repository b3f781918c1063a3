import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { ENDPOINT_NAMES, ENDPOINTS } from '../../src/exchange/endpoints.ts';
import { EXCHANGE_API_DOC, markedBlock, replaceMarkedBlock } from '../../src/exchange/tools/doc-blocks.ts';
import { ALL_ENDPOINT_NAMES } from '../../src/streams/endpoints.ts';
import { STREAMS } from '../../src/streams/registry.ts';
import {
  ENDPOINT_TABLE_BLOCK,
  endpointBlockIsCurrent,
  endpointTableRows,
  normalizeBlock,
  renderEndpointBlock,
} from '../../src/streams/tools/endpoint-table.ts';

const doc = readFileSync(EXCHANGE_API_DOC, 'utf8');

describe('the endpoint table of docs/exchange-api.md §4.1', () => {
  it('says what the endpoint declarations say (regenerate with npx tsx src/streams/tools/endpoint-table.ts)', () => {
    // Compared row by row, so a failure names the endpoint whose method, path or limit differs.
    expect(normalizeBlock(markedBlock(doc, ENDPOINT_TABLE_BLOCK))).toEqual(normalizeBlock(renderEndpointBlock()));
    expect(endpointBlockIsCurrent(doc)).toBe(true);
  });

  it('lists every endpoint, the core ones and one per stream of the registry, with method, path, budget and key', () => {
    const rows = endpointTableRows();
    // Eight core endpoints and one per stream (fourteen with six streams): a stream added joins without an edit here.
    const count = ENDPOINT_NAMES.length + STREAMS.length;
    expect(ENDPOINT_NAMES).toHaveLength(8);
    expect(rows).toHaveLength(count);
    expect(new Set(rows.map((row) => row[3])).size).toBe(count);
    const fundNetFlow = rows[ALL_ENDPOINT_NAMES.indexOf('fundNetFlow')]!;
    expect(fundNetFlow).toEqual([
      'fund-net-flow',
      '`fundNetFlow`',
      'GET',
      `\`${ENDPOINTS.fundNetFlow.path}\``,
      '1 / s',
      'IP',
      'no (public)',
    ]);
  });

  it('notices a changed limit: a doc whose table disagrees with endpoints.ts is not current', () => {
    const changed = renderEndpointBlock().replace(/(\| spot-record .*?\| )1 \/ s/, '$12 / s');
    expect(changed).not.toBe(renderEndpointBlock());
    expect(endpointBlockIsCurrent(replaceMarkedBlock(doc, ENDPOINT_TABLE_BLOCK, changed))).toBe(false);
  });

  it('ignores padding: a block that differs only in column widths is still current', () => {
    const unpadded = renderEndpointBlock().replace(/ {2,}/g, ' ');
    expect(endpointBlockIsCurrent(replaceMarkedBlock(doc, ENDPOINT_TABLE_BLOCK, unpadded))).toBe(true);
  });
});
