import type { SyncWindowRow } from '../../src/ingest/coverage/window-store.ts';
import type { Stream } from '../../src/streams/registry.ts';

/** Payload of an ingest job: which stored window to read. Never a secret. */
export interface IngestWindowJob {
  accountId: string;
  windowId: string;
  stream: Stream;
  scope: string;
  /** [start, end) in Unix ms, for people reading the queue; the window row is the truth. */
  start: number;
  end: number;
  /**
   * The run of the job (BullMQ's attemptsStarted) that last gave its worker slot up (a budget
   * wait, a time slice, a shutdown): the run right after it resumes that try, not a new one.
   */
  handedBackInRun?: number;
}

/**
 * One job id per (account, stream, scope, window): enqueueing a window twice
 * while it waits or runs adds nothing. (BullMQ reserves ':' in ids.)
 */
export function ingestJobId(job: Pick<IngestWindowJob, 'accountId' | 'stream' | 'scope' | 'start' | 'end'>): string {
  return ['ingest', job.accountId, job.stream, job.scope || 'all', job.start, job.end].join('.');
}

/** The job that reads a stored window. */
export function windowJobData(window: SyncWindowRow): IngestWindowJob {
  return {
    accountId: window.accountId,
    windowId: window.id,
    stream: window.stream,
    scope: window.scope,
    start: window.start,
    end: window.end,
  };
}
