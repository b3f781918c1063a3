import { exportDuration } from '../../metrics/instruments.ts';
import type { RecordedRun } from './run-listener.ts';

/** A run listener (startWorkers' runListeners) that times the exports this worker ran. */
export function observeRunDurations(run: RecordedRun): void {
  if (run.kind !== 'export') return;
  const detail = (run.detail ?? {}) as { report?: unknown };
  const seconds = (new Date(run.finishedAt).getTime() - new Date(run.startedAt).getTime()) / 1000;
  exportDuration.observe(
    { report: typeof detail.report === 'string' ? detail.report : 'unknown', status: run.status },
    seconds,
  );
}
