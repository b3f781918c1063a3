import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { STREAM_DEFINITIONS, STREAMS } from '../../src/streams/registry.ts';

/*
 * Meaning decides core, not presence (issue 34, finding 1): a field a stream's columns declare
 * non-core is read as null (or '') when the exchange leaves it out or garbles it, so no report,
 * booking, pairing or check may depend on it. The only use a non-core column may have outside
 * ingestion is to be printed as is: a report's column header `text('<column>')` and its cell
 * `enumOrRaw('<column>', '<field>')`. Any other mention, in SQL or code, is a read.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Where records are stored and parsed, not read for meaning: their own declarations, the simulator, generated code. */
const NOT_READERS = ['src/streams', 'src/simulator', 'src/generated', 'src/exchange', 'src/ingest', 'src/db'];

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    const relative = path.relative(ROOT, full);
    if (NOT_READERS.some((skip) => relative === skip || relative.startsWith(`${skip}/`))) continue;
    if (statSync(full).isDirectory()) out.push(...sources(full));
    else if (name.endsWith('.ts')) out.push(full);
  }
  return out;
}

/** Comments removed (they may name a field to explain it), line breaks kept so lines still count. */
function code(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '))
    .replace(/(^|[^:'"`\\])\/\/[^\n]*/g, '$1');
}

function printOnly(text: string, column: string, field: string): string {
  return text
    .replaceAll(`text('${column}')`, '')
    .replaceAll(`enumOrRaw('${column}', '${field}')`, '')
    .replaceAll(`enumOrRaw('${column}', "${field}")`, '');
}

interface NonCore {
  stream: string;
  field: string;
  column: string;
}

const NON_CORE: NonCore[] = STREAMS.flatMap((stream) =>
  Object.entries(STREAM_DEFINITIONS[stream].columns)
    .filter(([, field]) => !field.core)
    .map(([field, spec]) => ({ stream, field, column: spec.column })),
);

/** Every line of the readers that mentions a non-core column or field other than to print it. */
export function nonCoreReads(files: readonly string[], nonCore: readonly NonCore[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const text = code(readFileSync(file, 'utf8'));
    for (const { stream, field, column } of nonCore) {
      const lines = printOnly(text, column, field).split('\n');
      const word = new RegExp(`\\b(${column}|${field})\\b`);
      lines.forEach((line, index) => {
        if (word.test(line))
          found.push(`${path.relative(ROOT, file)}:${index + 1} reads ${stream} ${field} (${column})`);
      });
    }
  }
  return found;
}

const READERS = [...sources(path.join(ROOT, 'src')), ...sources(path.join(ROOT, 'jobs'))];

describe('a non-core column', () => {
  it('is read by no report, booking, pairing or check: at most printed as is', () => {
    expect(READERS.length).toBeGreaterThan(100);
    expect(nonCoreReads(READERS, NON_CORE)).toEqual([]);
  });

  it('would be caught if a report paired or signed money by it (the scan sees SQL in strings)', () => {
    const reports = READERS.filter((file) => file.includes(`${path.sep}booking${path.sep}`));
    const asIfNonCore: NonCore[] = [
      { stream: 'spot', field: 'bizOrderId', column: 'biz_order_id' },
      { stream: 'positions', field: 'holdSide', column: 'hold_side' },
    ];
    const reads = nonCoreReads(reports, asIfNonCore);
    expect(reads).toEqual(
      expect.arrayContaining([expect.stringMatching(/^src\/booking\/trade-orders\.ts:\d+ reads spot bizOrderId/)]),
    );
    expect(reads).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^src\/booking\/futures-entries\.ts:\d+ reads positions holdSide/),
      ]),
    );
  });
});

describe('the columns that pair, classify, sign or date money', () => {
  it.each([
    ['spot', 'bizOrderId'],
    ['positions', 'holdSide'],
    ['positions', 'symbol'],
    ['futures-ledger', 'symbol'],
    ['transfers', 'type'],
  ] as const)('are core in their declaration: %s %s', (stream, field) => {
    const columns = STREAM_DEFINITIONS[stream].columns as Record<string, { core: boolean }>;
    expect(columns[field]?.core).toBe(true);
  });
});
