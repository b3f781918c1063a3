import { describe, expect, it } from 'vitest';

import { migrationVerdict } from '../../src/db/migration-state.ts';

const BUILD = ['20260101_init', '20260201_history', '20260301_prices'];

describe('migrationVerdict: is the database at this build’s migrations?', () => {
  it('ready when exactly the build’s migrations are applied, in whatever order the rows list them', () => {
    expect(migrationVerdict('ledgerline', [...BUILD].reverse(), BUILD)).toBeUndefined();
  });

  it('no migrations table, or an empty one: not migrated, run migrate', () => {
    for (const applied of [undefined, []]) {
      expect(migrationVerdict('ledgerline', applied, BUILD)?.message).toBe(
        'database ledgerline is not migrated: run `ledgerline migrate`',
      );
    }
  });

  it('older: names the newest applied and the newest expected, run migrate', () => {
    const verdict = migrationVerdict('ledgerline', BUILD.slice(0, 1), BUILD);
    expect(verdict?.state).toBe('older');
    expect(verdict?.message).toBe(
      'database ledgerline is at migration 20260101_init, this build expects 20260301_prices: run `ledgerline migrate`',
    );
  });

  it('an earlier migration skipped (merged in between) is named, not the newest twice', () => {
    expect(migrationVerdict('ledgerline', [BUILD[0]!, BUILD[2]!], BUILD)?.message).toBe(
      'database ledgerline has not applied migration 20260201_history: run `ledgerline migrate`',
    );
  });

  it('newer: a migration this build does not know says upgrade, even with some of ours missing', () => {
    for (const applied of [
      [...BUILD, '20270101_future'],
      [BUILD[0]!, '20270101_future'],
    ]) {
      const verdict = migrationVerdict('ledgerline', applied, BUILD);
      expect(verdict?.state).toBe('newer');
      expect(verdict?.message).toBe(
        'database ledgerline is at migration 20270101_future, newer than this build (which expects 20260301_prices): upgrade ledgerline',
      );
    }
  });
});
