import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { EXCHANGE_API_DOC, markedBlock } from '../../src/exchange/tools/doc-blocks.ts';
import {
  CORE_FIELDS_BLOCK,
  coreFieldRows,
  coreFieldsBlockIsCurrent,
  renderCoreFieldsBlock,
} from '../../src/streams/tools/core-fields-table.ts';
import { normalizeBlock } from '../../src/streams/tools/endpoint-table.ts';

const doc = readFileSync(EXCHANGE_API_DOC, 'utf8');

describe('the core-fields table of docs/exchange-api.md §1.5', () => {
  it("says what the streams' columns say (regenerate with npx tsx src/streams/tools/core-fields-table.ts)", () => {
    expect(normalizeBlock(markedBlock(doc, CORE_FIELDS_BLOCK))).toEqual(normalizeBlock(renderCoreFieldsBlock()));
    expect(coreFieldsBlockIsCurrent(doc)).toBe(true);
  });

  it('names positionId core and posMode not (the decision of issue 24)', () => {
    const positions = coreFieldRows().find((row) => row[0] === 'positions')!;
    expect(positions[2]).toContain('`positionId`');
    expect(positions[3]).toContain('`posMode`');
  });
});
