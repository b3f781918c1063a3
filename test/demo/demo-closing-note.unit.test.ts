import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, describe, expect, it, vi } from 'vitest';

import type { DemoAccountant } from '../../src/demo/demo-accountant.ts';
import { settleDemoLog } from '../../src/demo/demo-log-file.ts';
import { printSummary } from '../../src/demo/print-summary.ts';
import type { DemoSummary } from '../../src/demo/run-demo.ts';
import type { ReconciliationReport } from '../../src/reconcile/index.ts';

function summary(rerun?: DemoSummary['rerun']): DemoSummary {
  const supplied = {
    lots: { covered: 0, skipped: 0 },
    sells: { covered: 0, skipped: 0 },
    lacking: { before: { coins: 0, sells: 0 }, after: { coins: 0, sells: 0 } },
    costBasisFile: 'c.csv',
    proceedsFile: 'p.csv',
  } as unknown as DemoAccountant;
  return {
    account: 'demo',
    rows: {},
    seconds: 90,
    bound: { seconds: 80, endpoint: 'futureRecord', requests: 80, perSecond: 1, byEndpoint: { futureRecord: 80 } },
    phases: [['backfill', 80]],
    reconciliation: { summary: 'PASSED', checks: [], passed: true } as unknown as ReconciliationReport,
    reports: [],
    accountant: { supplied, after: [] },
    ...(rerun ? { rerun } : {}),
  };
}

function printed(s: DemoSummary): string {
  const lines: string[] = [];
  const spy = vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
  try {
    printSummary(s, '/tmp/exports');
  } finally {
    spy.mockRestore();
  }
  return lines.join('\n');
}

afterEach(() => vi.restoreAllMocks());

describe("the demo's closing note", () => {
  it('states a first run against its bound, and a rerun by what it read and wrote again, with no ratio', () => {
    expect(printed(summary())).toMatch(/wall \/ bound 1\.13$/m);
    const rerun = printed(summary({ windows: 11, requests: 14, exported: 0, kept: 24 }));
    expect(rerun).not.toMatch(/wall \/ bound|bound {11}/);
    expect(rerun).toMatch(/^ {2}rerun {11}.*11 windows read again \(14 requests\), 0 files exported again, 24 kept /m);
  });
});

describe("the demo's worker log", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'll-demo-log-'));

  it('is removed when empty after a run that succeeded, and kept and named when it holds lines', () => {
    const empty = path.join(dir, 'empty.log');
    writeFileSync(empty, '');
    expect(settleDemoLog(empty, true)).toBeUndefined();
    expect(existsSync(empty)).toBe(false);

    const warned = path.join(dir, 'warned.log');
    writeFileSync(warned, '{"level":40}\n{"level":50}\n');
    expect(settleDemoLog(warned, true)).toBe(`worker logs: 2 warning or error line(s) kept in ${warned}`);
    expect(existsSync(warned)).toBe(true);

    const failed = path.join(dir, 'failed.log');
    writeFileSync(failed, '');
    expect(settleDemoLog(failed, false)).toMatch(/kept in /);
    expect(existsSync(failed)).toBe(true);
  });
});
