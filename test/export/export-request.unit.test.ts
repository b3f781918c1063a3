import { describe, expect, it } from 'vitest';

import { ValidationError } from '../../src/errors/index.ts';
import { exportBaseName, parseExportRequest } from '../../src/export/export-request.ts';
import { parsePeriod, previousMonth } from '../../src/export/period.ts';

const ACCOUNT = '0b7c6f0e-3d1f-4c55-9d7c-1f7d2f6f1a01';

function failure(work: () => unknown): ValidationError {
  try {
    work();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('periods', () => {
  it('turns local dates into [from 00:00, to+1 00:00) local, UTC by default', () => {
    const utc = parsePeriod({ from: '2026-01-01', to: '2026-12-31' });
    expect([utc.start.toISOString(), utc.end.toISOString(), utc.tz]).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2027-01-01T00:00:00.000Z',
      'UTC',
    ]);
    const berlin = parsePeriod({ from: '2026-01-01', to: '2026-12-31', tz: 'europe/berlin' });
    expect([berlin.start.toISOString(), berlin.end.toISOString(), berlin.tz]).toEqual([
      '2025-12-31T23:00:00.000Z',
      '2026-12-31T23:00:00.000Z',
      'Europe/Berlin',
    ]);
    const oneDay = parsePeriod({ from: '2026-07-04', to: '2026-07-04', tz: 'America/New_York' });
    expect([oneDay.start.toISOString(), oneDay.end.toISOString()]).toEqual([
      '2026-07-04T04:00:00.000Z',
      '2026-07-05T04:00:00.000Z',
    ]);
  });

  it('names the field and the rule for bad dates, zones and order', () => {
    expect(failure(() => parsePeriod({ from: '2026-02-30', to: '2026-03-01' })).field).toBe('from');
    expect(failure(() => parsePeriod({ from: '2026-01-01', to: '31.12.2026' })).message).toMatch(
      /^to: must be a date written yyyy-MM-dd/,
    );
    expect(failure(() => parsePeriod({ to: '2026-01-01' })).message).toMatch(/^from: is required/);
    const zone = failure(() => parsePeriod({ from: '2026-01-01', to: '2026-01-02', tz: 'Mars/Olympus' }));
    expect([zone.field, zone.message]).toEqual([
      'tz',
      'tz: must be an IANA time zone name such as UTC or Europe/Berlin (got "Mars/Olympus")',
    ]);
    expect(failure(() => parsePeriod({ from: '2026-01-01', to: '2026-01-02', tz: '+01:00' })).field).toBe('tz');
    // Year 0 is a calendar date to luxon but out of Postgres's range: refused before any query.
    expect(failure(() => parsePeriod({ from: '0000-01-01', to: '0000-01-31' })).message).toMatch(
      /^from: must be 1970 or later/,
    );
    // A period ending in the year 10000 would reach Postgres as +010000-01-01 and fail there.
    const last = failure(() => parsePeriod({ from: '9999-12-01', to: '9999-12-31' }));
    expect([last.field, last.message]).toEqual([
      'to',
      'to: must end the period within the year 9999 (UTC): 9999-12-30 at the latest (got "9999-12-31")',
    ]);
    expect(parsePeriod({ from: '9999-12-01', to: '9999-12-30' }).end.toISOString()).toBe('9999-12-31T00:00:00.000Z');
    const order = failure(() => parsePeriod({ from: '2026-02-01', to: '2026-01-31' }));
    expect([order.field, order.rule]).toEqual(['to', 'must not be before from (2026-02-01)']);
  });

  it('finds the previous local month, across a year end', () => {
    const period = previousMonth(new Date('2026-01-01T02:00:00Z'), 'Europe/Berlin');
    expect([period.from, period.to]).toEqual(['2025-12-01', '2025-12-31']);
    // 00:30 UTC on 1 March is still February in New York: the previous month there is January.
    const ny = previousMonth(new Date('2026-03-01T00:30:00Z'), 'America/New_York');
    expect([ny.from, ny.to]).toEqual(['2026-01-01', '2026-01-31']);
  });
});

describe('export requests', () => {
  it('validates the report, account id, coin and the pending option', () => {
    expect(failure(() => parseExportRequest({ report: 'nope', accountId: ACCOUNT })).field).toBe('report');
    expect(failure(() => parseExportRequest({ report: 'koinly', accountId: 'acct' })).field).toBe('accountId');
    const base = { report: 'spot-ledger', accountId: ACCOUNT, from: '2026-01-01', to: '2026-01-31' };
    expect(failure(() => parseExportRequest({ ...base, coin: 'BTC;DROP' })).field).toBe('coin');
    // '_' separates the parts of the file name: a coin holding one could collide with another export.
    expect(failure(() => parseExportRequest({ ...base, coin: 'USDT_pending' })).field).toBe('coin');
    expect(failure(() => parseExportRequest({ ...base, coin: 'A..B' })).field).toBe('coin');
    // A field given twice in a form or query string arrives as an array: refused by name, not a crash.
    const twice = failure(() => parseExportRequest({ ...base, tz: ['UTC', 'UTC'] as unknown as string }));
    expect(twice.message).toBe('tz: must be given once, as text');
    // The exchange's symbols are upper case: `btc` asks for BTC rather than an empty report.
    expect(parseExportRequest({ ...base, coin: ' btc ' }).coin).toBe('BTC');
    expect(failure(() => parseExportRequest({ ...base, includePending: true })).field).toBe('pending');
    expect(parseExportRequest({ ...base, report: 'broker-transfers', includePending: true }).includePending).toBe(true);
    const journal = failure(() => parseExportRequest({ ...base, report: 'beancount', coin: 'BTC' }));
    expect(journal.message).toBe('coin: does not apply to beancount (got "BTC")');
    expect(parseExportRequest({ ...base, report: 'beancount', coin: ' ' }).coin).toBeUndefined();
  });

  it('derives a file name from the parameters alone', () => {
    const request = parseExportRequest({
      report: 'broker-transfers',
      accountId: ACCOUNT,
      from: '2026-01-01',
      to: '2026-12-31',
      tz: 'Europe/Berlin',
      coin: 'USDT',
      includePending: true,
    });
    expect(exportBaseName(request)).toBe('broker-transfers_2026-01-01_2026-12-31_Europe~Berlin_coin-USDT_pending');
  });
});

describe('gains methods under filing rules and --valuation', () => {
  it('--method uk and de value in GBP and EUR; the job payload carries the valuation through', async () => {
    const { exportJobData, exportRequestInput } = await import('../../jobs/payloads/export-job.ts');
    const base = { report: 'realized-gains', accountId: ACCOUNT, from: '2024-04-06', to: '2025-04-05' };
    expect(parseExportRequest({ ...base, method: 'UK' }).valuationCurrency).toBe('GBP');
    expect(parseExportRequest({ ...base, method: 'de' }).valuationCurrency).toBe('EUR');
    expect(failure(() => parseExportRequest({ ...base, method: 'uk', valuation: 'EUR' })).field).toBe('valuation');
    expect(failure(() => parseExportRequest({ ...base, method: 'us' })).message).toMatch(
      /fifo, lifo, hifo, average, uk, de/,
    );
    const inGbp = parseExportRequest({ ...base, valuation: 'gbp' });
    expect(inGbp.valuationCurrency).toBe('GBP');
    expect(parseExportRequest(exportRequestInput(exportJobData(inGbp)))).toEqual(inGbp);
  });
});
