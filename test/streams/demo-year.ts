import { afterAll, beforeAll } from 'vitest';

import { backfillUntilDone } from '../helpers/backfill-done.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { type TestDatabase, useTestDatabase } from '../helpers/test-database.ts';

const DAY = 86_400_000;

export interface DemoYear {
  readonly db: TestDatabase;
  /** The running pipeline, its history backfilled (inside tests and hooks). */
  readonly pipeline: Pipeline;
}

/**
 * The demo account with a year's backfill of every stream (400 days to now), on the file's own
 * database: the acceptance of the futures, margin and P2P ledgers is stated on it. Backfilling it is
 * the slow part (a year of every stream of the demo's data), so one file backfills it once for both
 * sets of cases (futures-ledger-cases.ts, wallet-ledgers-cases.ts); each case that breaks the stored
 * data puts it back before it ends.
 */
export function useDemoYear(): DemoYear {
  const db = useTestDatabase('demoyearledgers');
  let pipeline: Pipeline | undefined;
  beforeAll(async () => {
    pipeline = await startPipeline({ databaseUrl: db.url, simulator: { scale: 'demo' } });
    pipeline.startWorkers();
    const now = Date.now();
    await backfillUntilDone(
      pipeline.runtime,
      { account: 'demo', stream: 'all', from: now - 400 * DAY, to: now, now },
      150_000,
    );
  }, 200_000);
  afterAll(async () => {
    await pipeline?.close();
  });
  return {
    db,
    get pipeline() {
      if (!pipeline) throw new Error('the demo year is backfilled in beforeAll: use it inside tests');
      return pipeline;
    },
  };
}
