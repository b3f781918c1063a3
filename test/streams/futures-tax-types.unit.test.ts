import { readFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { FUTURE_TAX_TYPES as SIMULATOR_TYPES } from '../../src/simulator/data/futures-tax-types.ts';
import { FUTURE_TAX_TYPES } from '../../src/streams/futures-ledger/tax-types.ts';

const DOC = readFileSync(path.resolve(import.meta.dirname, '../../docs/exchange-api.md'), 'utf8');

/** The first word of each line of the doc's futureTaxType block (§8.5). */
function documentedTypes(): string[] {
  const block = /<!-- future-tax-types:start -->([\s\S]*?)<!-- future-tax-types:end -->/.exec(DOC);
  if (!block) throw new Error('docs/exchange-api.md has no future-tax-types block');
  return block[1]!
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0]!)
    .filter((word) => /^[A-Z_]+$/.test(word));
}

describe('futureTaxType values (docs/exchange-api.md §8.5)', () => {
  it('the client and the simulator hold exactly the documented list, in its order', () => {
    expect(documentedTypes()).toHaveLength(28);
    expect([...FUTURE_TAX_TYPES]).toEqual(documentedTypes());
    expect([...SIMULATOR_TYPES]).toEqual(documentedTypes());
  });
});
