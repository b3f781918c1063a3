import { describe, expect, it } from 'vitest';

import { parseCostBasis } from '../../src/accounting/cost-basis/cost-basis-import.ts';
import { SUPPLIED_LIMITS, suppliedText } from '../../src/accounting/cost-basis/supplied-csv.ts';
import { FILING_CURRENCIES, isoOr } from '../../src/accounting/cost-basis/supplied-currency.ts';
import { SuppliedRowsError } from '../../src/accounting/cost-basis/supplied-rows-error.ts';
import { withdrawalReason } from '../../src/accounting/cost-basis/supplied-withdrawal.ts';
import { parseProceeds } from '../../src/accounting/proceeds/proceeds-import.ts';
import { ValidationError } from '../../src/errors/index.ts';
import { costEntryCsv, formMessage, proceedsEntryCsv } from '../../src/http/supply-entries.ts';

/**
 * The validation of supplied figures that the command line and the page share (docs/reports.md,
 * "Supplied figures"): every bad row named in one message each, only currencies a walk can value
 * in, files and cells bounded in bytes, no NUL byte: each a typed error, nothing written.
 */
const HEADER = 'coin,quantity,acquired_at,cost,currency,source,note';

function refusal(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('supplied files: one message per bad row', () => {
  it('names every bad row, each by its line, field and rule, and the one-line message counts them', () => {
    const text = [
      HEADER,
      'ETH,1,2024-01-10,1500,GBP,bank,',
      'ETH,-1,2024-01-10,1,GBP,bank,',
      'ETH,1,yesterday,1,GBP,bank,',
      'BTC,1,2024-01-10,1,GBP,Bank Statement!,',
      'ETH,1,2024-01-10,1500,GBP,bank,',
    ].join('\n');
    const error = refusal(() => parseCostBasis(text));
    expect(error).toBeInstanceOf(SuppliedRowsError);
    expect((error as SuppliedRowsError).problems.map((p) => p.message)).toEqual([
      'line 3 quantity: must be a plain decimal above 0 (got "-1")',
      'line 4 acquired_at: must be a date (yyyy-MM-dd), a date-time with Z or an offset, or Unix ms (got "yesterday")',
      'line 5 source: must be 1-40 characters a-z, 0-9, ".", "_" or "-", starting with a letter or digit (got "Bank Statement!")',
      'line 6: must not repeat an earlier row of the file',
    ]);
    expect(error.message).toMatch(/^file: 4 rows break the rules, nothing written: line 3 quantity: /);
    expect(error.message).not.toContain('\n');
  });

  it('a single bad row is its own message, as before', () => {
    const error = refusal(() => parseCostBasis(`${HEADER}\nETH,-1,2024-01-10,1,EUR,x,\n`));
    expect(error.message).toBe('line 2 quantity: must be a plain decimal above 0 (got "-1")');
  });

  it('names the line a row ends on past blank lines and a quoted cell across lines', () => {
    const text = `record_id,proceeds,currency,source,note\n\np2p:1,1,GBP,bank,"two\nlines"\np2p:2,x,GBP,bank,\n`;
    const error = refusal(() => parseProceeds(text)) as SuppliedRowsError;
    expect(error.problems.map((p) => p.message)).toEqual([
      'line 4 note: must not contain control characters (line breaks, tabs) (got "two\\nlines")',
      'line 5 proceeds: must be a plain decimal, 0 or more (got "x")',
    ]);
  });
});

describe('supplied files: currencies', () => {
  it('refuses a code that is no ISO 4217 currency (XYZ, GPB) on the command line; USD and the valuation currency pass', () => {
    const rule = isoOr('USDT');
    const rows = (currency: string) => `${HEADER}\nETH,1,2024-01-10,1500,${currency},bank,\n`;
    expect(refusal(() => parseCostBasis(rows('XYZ'), rule)).message).toBe(
      'line 2 currency: must be an ISO 4217 currency code such as GBP, EUR or USD, or USDT (the valuation currency) (got "XYZ")',
    );
    expect(refusal(() => parseProceeds('record_id,proceeds,currency,source\np2p:1,1,GPB,bank\n')).message).toBe(
      'line 2 currency: must be an ISO 4217 currency code such as GBP, EUR or USD (got "GPB")',
    );
    expect(parseCostBasis(rows('usd'), rule)[0]!.currency).toBe('USD');
    expect(parseCostBasis(rows('USDT'), rule)[0]!.currency).toBe('USDT');
  });

  it('on the page takes only the tax-year currencies: GBP (uk) and EUR (de), nothing converted', () => {
    const text = `${HEADER}\nETH,1,2024-01-10,1500,USD,bank,\nETH,1,2024-01-10,1400,GBP,bank,\nETH,1,2024-01-10,1600,eur,bank,\n`;
    const error = refusal(() => parseCostBasis(text, FILING_CURRENCIES));
    expect(error.message).toBe(
      'line 2 currency: must be GBP or EUR: the tax-year figures are valued in GBP (uk) and EUR (de), and nothing is converted (got "USD")',
    );
    expect(parseCostBasis(text.replace('USD', 'GBP').replace(',1500,', ',1300,'), FILING_CURRENCIES)).toHaveLength(3);
  });
});

describe('supplied files: bytes', () => {
  it('refuses a file past 16 MiB naming the limit, before decoding it', () => {
    const bytes = new Uint8Array(SUPPLIED_LIMITS.fileBytes + 1).fill(0x41);
    expect(refusal(() => suppliedText(bytes)).message).toBe(
      'file: must be at most 16,777,216 bytes (16 MiB) (got "16,777,217 bytes")',
    );
  });

  it('refuses a cell past 1000 bytes (counted in UTF-8), naming the row and the field', () => {
    const note = 'é'.repeat(501);
    const error = refusal(() => parseCostBasis(`${HEADER}\nETH,1,2024-01-10,1500,GBP,bank,${note}\n`));
    expect(error.message).toBe('line 2 note: must be at most 1000 bytes (got "1002 bytes")');
    expect(parseCostBasis(`${HEADER}\nETH,1,2024-01-10,1500,GBP,bank,${'é'.repeat(500)}\n`)[0]!.note).toHaveLength(500);
  });

  it('refuses a NUL byte naming its line, in bytes and in text', () => {
    const text = `${HEADER}\nETH,1,2024-01-10,1500,GBP,bank,\nETH,1,2024-01-10,1\u0000,GBP,bank,\n`;
    const expected = 'line 3: must not contain a NUL byte (the file is binary or damaged: save it as CSV)';
    expect(refusal(() => suppliedText(Buffer.from(text))).message).toBe(expected);
    expect(refusal(() => parseCostBasis(text)).message).toBe(expected);
  });

  it('refuses bytes that are not UTF-8', () => {
    const latin1 = Buffer.from(`${HEADER}\nETH,1,2024-01-10,1500,GBP,bank,caf\u00e9\n`, 'latin1');
    expect(refusal(() => suppliedText(latin1)).message).toBe('file: must be UTF-8 text (save it as "CSV UTF-8")');
  });
});

describe('the page form as the CSV it amounts to', () => {
  const deposit = {
    recordId: 'spot:7',
    coin: 'ETH',
    atMs: Date.parse('2025-03-01T10:00:00Z'),
    quantity: '2',
    kind: 'deposit' as const,
    taxType: 'Deposit',
  };
  const fields =
    (values: Record<string, string>) =>
    (name: string): string | undefined =>
      values[name];

  it('a deposit form: a lot per currency given, of the quantity lacking under that method', () => {
    const text = costEntryCsv(
      { ...deposit, lacking: { uk: '2', de: '0.5' } },
      fields({ acquired_on: '2025-02-01', cost_gbp: '3000', cost_eur: '900', source: 'bank', note: 'a, "b"' }),
    );
    expect(text).toBe(
      `${HEADER}\nETH,2,2025-02-01,3000,GBP,bank,"a, ""b"""\nETH,0.5,2025-02-01,900,EUR,bank,"a, ""b"""\n`,
    );
    expect(parseCostBasis(text, FILING_CURRENCIES).map((r) => [r.quantity, r.cost, r.currency])).toEqual([
      ['2', '3000', 'GBP'],
      ['0.5', '900', 'EUR'],
    ]);
  });

  it('refuses a purchase date after the coins moved in, no cost at all, and says a bad cost in the form’s words', () => {
    const open = { ...deposit, lacking: { uk: '2', de: '2' } };
    expect(refusal(() => costEntryCsv(open, fields({ acquired_on: '2025-03-02', cost_gbp: '1' }))).message).toBe(
      'bought on: must be on or before the day the coins moved in (got "2025-03-02")',
    );
    expect(refusal(() => costEntryCsv(open, fields({ acquired_on: '2025-03-01' }))).message).toBe(
      'cost: must be given in GBP or EUR',
    );
    const text = costEntryCsv(open, fields({ acquired_on: '2025-03-01', cost_eur: 'lots', source: 'bank' }));
    const error = refusal(() => parseCostBasis(text, FILING_CURRENCIES));
    expect(formMessage(error.message, text)).toBe('EUR cost: must be a plain decimal, 0 or more (got "lots")');
  });

  it('refuses a lot an earlier arrival of the coin, lacking a cost in that currency at or after its date, would take', () => {
    const open = { ...deposit, lacking: { uk: '2', de: '2' } };
    const earlier = {
      ...deposit,
      recordId: 'futures:9',
      kind: 'futures-in' as const,
      taxType: 'TRANSFER_IN',
      atMs: Date.parse('2025-02-10T00:00:00Z'),
      lacking: { uk: '1', de: '0' },
    };
    const entry = (day: string, currency: 'gbp' | 'eur') =>
      costEntryCsv(open, fields({ acquired_on: day, [`cost_${currency}`]: '10', source: 'bank' }), [earlier]);
    expect(refusal(() => entry('2025-02-01', 'gbp')).message).toBe(
      'bought on: an earlier arrival of ETH (futures:9, 2025-02-10T00:00:00.000Z) lacks a cost in GBP and would take ' +
        'this lot: supply its cost first, or a date after it (got "2025-02-01")',
    );
    // In euros the earlier arrival has its cost; in pounds a date after it leaves the lot to this one.
    expect(entry('2025-02-01', 'eur')).toContain('ETH,2,2025-02-01,10,EUR,bank');
    expect(entry('2025-02-11', 'gbp')).toContain('ETH,2,2025-02-11,10,GBP,bank');
  });

  it('a sale form: a row per currency it still lacks', () => {
    const sale = {
      recordId: 'p2p:4',
      soldAt: '2025-03-08T10:00:00Z',
      coin: 'USDT',
      quantity: '100',
      suppliedIn: 'GBP',
    };
    expect(proceedsEntryCsv(sale, fields({ proceeds_gbp: '1', proceeds_eur: '95.5', source: 'bank' }))).toBe(
      'record_id,proceeds,currency,source,note\np2p:4,95.5,EUR,bank,\n',
    );
  });
});

describe('a withdrawal’s reason', () => {
  it('is required, one line, at most 500 bytes', () => {
    expect(withdrawalReason('reason', '  typo in the cost  ')).toBe('typo in the cost');
    expect(refusal(() => withdrawalReason('reason', ' ')).message).toBe('reason: must say why (at least 3 characters)');
    expect(refusal(() => withdrawalReason('reason', 'x'.repeat(501))).message).toBe(
      'reason: must be at most 500 bytes (got "501 bytes")',
    );
    expect(refusal(() => withdrawalReason('reason', 'a\nb c')).message).toBe(
      'reason: must be one line without control characters',
    );
  });
});
