import { beforeAll, describe, expect, it } from 'vitest';

import { parseExportRequest } from '../../src/export/export-request.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { reportText } from './report-text.ts';
import { insertAccount, insertFuturesLedger, insertSpot } from './seed.ts';

/**
 * Same data, same bytes, where entries tie on time and record id: the two sides of a spot <-> futures
 * transfer carry the same id on the real exchange's records and the simulator's. Two accounts hold
 * the same moves, stored in opposite orders; their tax-tool files must list them in one order.
 */
const db = useTestDatabase('entryorderties');
const accounts: string[] = [];

const at = (i: number) => Date.UTC(2026, 4, 2 + (i % 20), 9, i % 60);

function file(report: 'cointracking' | 'koinly-futures' | 'koinly', accountId: string): Promise<string> {
  return reportText(db.url, parseExportRequest({ report, accountId, from: '2026-05-01', to: '2026-05-31' }), 'same');
}

beforeAll(async () => {
  for (const [name, spotFirst] of [
    ['spot-first', true],
    ['futures-first', false],
  ] as const) {
    const id = await insertAccount(db.url, name);
    accounts.push(id);
    const spot = Array.from({ length: 40 }, (_, i) => ({
      recordId: `${1764321152884000 + i}`,
      coin: 'USDT',
      spotTaxType: i % 2 ? 'Transfer in' : 'Transfer out',
      amount: i % 2 ? '25.5' : '-25.5',
      ts: new Date(at(i)).toISOString(),
    }));
    const futures = spot.map((s, i) => ({
      recordId: s.recordId,
      marginCoin: 'USDT',
      futureTaxType: i % 2 ? 'TRANSFER_OUT' : 'TRANSFER_IN',
      amount: i % 2 ? '-25.5' : '25.5',
      ts: at(i),
    }));
    const deposit = {
      recordId: '1',
      coin: 'USDT',
      spotTaxType: 'Deposit',
      amount: '1000',
      ts: '2026-05-01T08:00:00.000Z',
    };
    if (spotFirst) {
      await insertSpot(db.url, id, [deposit, ...spot]);
      await insertFuturesLedger(db.url, id, futures);
    } else {
      await insertFuturesLedger(db.url, id, [...futures].reverse());
      await insertSpot(db.url, id, [deposit, ...[...spot].reverse()]);
    }
  }
});

describe('entries tied on time and record id', () => {
  for (const report of ['cointracking', 'koinly-futures', 'koinly'] as const) {
    it(`${report}: the same rows in the same order, however the records were stored`, async () => {
      const [a, b] = [await file(report, accounts[0]!), await file(report, accounts[1]!)];
      expect(a.split('\n').length).toBeGreaterThan(40);
      expect(b).toBe(a);
    });
  }
});
