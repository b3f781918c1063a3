import { describe, expect, it } from 'vitest';

import { planWindows } from '../../src/exchange/paging/window-planner.ts';
import { futureRecordEndpoint } from '../../src/streams/futures-ledger/endpoint.ts';
import { historyPositionEndpoint } from '../../src/streams/positions/endpoint.ts';
import { spotRecordEndpoint } from '../../src/streams/spot/endpoint.ts';
import { allSubDepositWithdrawalEndpoint } from '../../src/streams/transfers/endpoint.ts';
import { rangeInOneCell } from '../helpers/grid-range.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;

describe('a test range pinned inside one grid cell', () => {
  it.each([
    ['spot', spotRecordEndpoint, 55, 5],
    ['positions', historyPositionEndpoint, 0, 10],
    ['transfers', allSubDepositWithdrawalEndpoint, 1, 7],
    ['futures-ledger', futureRecordEndpoint, 0, 10],
  ] as const)(
    '%s: is one window of the whole span on every hour of 120 consecutive days',
    (_name, endpoint, endDaysAgo, days) => {
      const first = Date.UTC(2026, 8, 1);
      for (let now = first; now < first + 120 * DAY; now += HOUR) {
        const { from, to } = rangeInOneCell(endpoint, now - endDaysAgo * DAY, days);
        expect(to).toBeLessThanOrEqual(now - endDaysAgo * DAY);
        expect(planWindows(endpoint, from, to, { now })).toEqual([{ start: from, end: from + days * DAY }]);
      }
    },
  );

  it('refuses a span longer than the endpoint’s cell', () => {
    expect(() => rangeInOneCell(allSubDepositWithdrawalEndpoint, Date.UTC(2026, 10, 1), 8)).toThrow(
      'spanDays: at most the cell of 7 days',
    );
  });
});
