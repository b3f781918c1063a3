import type { Prisma } from '../../db/prisma.ts';

/** What was written to `run`, handed to listeners (alerts, metrics). */
export type RecordedRun = Prisma.RunUncheckedCreateInput & { accountName?: string };

/**
 * Told of every sync, reconciliation and export written to the run history. Owned here, by the
 * observers (alerts, metrics); the workers' run recorder (jobs/runs/record-runs.ts) calls them.
 */
export interface RunListener {
  (run: RecordedRun): void;
}
