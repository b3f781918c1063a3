import type { StreamProgress } from '../../src/ingest/coverage/window-progress.ts';

/** A stream's backfill progress as windowProgress reports it: nothing read yet, then `over`. */
export function streamProgress(over: Partial<StreamProgress>): StreamProgress {
  return {
    stream: 'spot',
    total: 14,
    done: 0,
    failed: 0,
    rows: 0,
    revised: 0,
    donePages: 0,
    openPages: 0,
    retries: 0,
    lastError: null,
    ...over,
  };
}
