import { afterAll, describe, expect, it } from 'vitest';

import { DemoExportFailedError, DemoExportWorkers } from '../../src/demo/demo-export-workers.ts';

/** The demo's export threads: a group's failure comes back as a typed error naming the cause. */
const workers = new DemoExportWorkers(2);

afterAll(async () => {
  await workers.close();
});

describe('DemoExportWorkers', () => {
  it('answers an empty group from either thread, and a failed group with the error thrown in the thread', async () => {
    const job = {
      config: {
        databaseUrl: 'postgresql://postgres@127.0.0.1:5432/ledgerline_no_such_db',
        valuation: { currency: 'USDT', priceToleranceMs: 1, coinsAwayDays: 90 },
      },
      account: { id: '00000000-0000-0000-0000-000000000000', name: 'nobody' },
      exportDir: '/tmp',
    };
    // Two empty groups at once go to the two threads, and each answers.
    expect(
      await Promise.all([
        workers.write({ ...job, runs: [] }, () => undefined),
        workers.write({ ...job, runs: [] }, () => undefined),
      ]),
    ).toEqual([[], []]);

    const failed = workers.write(
      { ...job, runs: [{ report: 'spot-ledger', period: { from: '2026-01-01', to: '2026-01-31', tz: 'UTC' } }] },
      () => undefined,
    );
    await expect(failed).rejects.toBeInstanceOf(DemoExportFailedError);
    await expect(failed).rejects.toThrow(/ledgerline_no_such_db/);
  });
});
