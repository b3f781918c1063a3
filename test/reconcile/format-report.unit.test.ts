import { describe, expect, it } from 'vitest';

import { FAILURES_PRINTED, formatReport } from '../../src/reconcile/format-report.ts';
import type { CheckResult } from '../../src/reconcile/report-types.ts';

const heading = {
  accountName: 'main',
  recount: 'recent' as const,
  startedAt: new Date(Date.UTC(2026, 10, 22, 3, 0, 0)),
  finishedAt: new Date(Date.UTC(2026, 10, 22, 3, 0, 2, 500)),
};

const passing: CheckResult[] = [
  {
    name: 'coverage',
    passed: true,
    examined: '12 windows of 5 stream scopes',
    failures: [],
    notes: [],
    extents: [],
    findings: [],
  },
  {
    name: 'balance-continuity',
    passed: true,
    examined: '400 records of 7 coins',
    failures: [],
    notes: [],
    breaks: [],
    breakCount: 0,
  },
  {
    name: 'paging-stuck',
    passed: true,
    examined: 'no ts holds a full page of records',
    failures: [],
    notes: [],
    suspects: [],
  },
  {
    name: 'window-counts',
    passed: true,
    examined: '12 of 12 recently finished windows re-counted',
    failures: [],
    notes: ['positions USDT-FUTURES [...): re-counted from the horizon'],
    recount: 'recent',
    windowsRecounted: 12,
    mismatches: [],
  },
];

describe('formatReport', () => {
  it('one PASS line per check under a PASSED heading, then the notes', () => {
    expect(formatReport(heading, passing).split('\n')).toEqual([
      'Reconciliation of account main at 2026-11-22T03:00:00Z (recount: recent, 2.5 s): PASSED, all 4 checks',
      'PASS  coverage                 12 windows of 5 stream scopes',
      'PASS  spot balance continuity  400 records of 7 coins',
      'PASS  paging stuck             no ts holds a full page of records',
      'PASS  window counts            12 of 12 recently finished windows re-counted',
      '',
      'Notes:',
      '  window counts: positions USDT-FUTURES [...): re-counted from the horizon',
    ]);
  });

  it('a failing check: FAIL line, its failures named under Failures, an error that is not a failure line, and a cap', () => {
    const many = Array.from({ length: FAILURES_PRINTED + 3 }, (_, i) => `BTC: record ${i} breaks`);
    const checks: CheckResult[] = [
      {
        name: 'coverage',
        passed: false,
        examined: 'could not finish',
        failures: [],
        notes: [],
        error: 'Error: database gone',
        extents: [],
        findings: [],
      },
      {
        name: 'balance-continuity',
        passed: false,
        examined: '400 records of 7 coins',
        failures: many,
        notes: [],
        breaks: [],
        breakCount: many.length,
      },
      passing[2]!,
      passing[3]!,
    ];
    const lines = formatReport(heading, checks).split('\n');
    expect(lines[0]).toMatch(/: FAILED, 2 of 4 checks$/);
    expect(lines[1]).toBe('FAIL  coverage                 could not finish');
    expect(lines[2]).toBe('FAIL  spot balance continuity  400 records of 7 coins');
    const failures = lines.slice(lines.indexOf('Failures:') + 1, lines.indexOf('Notes:') - 1);
    expect(failures[0]).toBe('  coverage: could not finish: Error: database gone');
    expect(failures[1]).toBe('  spot balance continuity: BTC: record 0 breaks');
    expect(failures).toHaveLength(1 + FAILURES_PRINTED + 1);
    expect(failures.at(-1)).toBe('  spot balance continuity: ... and 3 more (see the report row)');
  });
});
