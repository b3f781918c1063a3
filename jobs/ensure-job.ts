import type { Job, JobsOptions, Queue } from 'bullmq';

/** A queue whose payload and result types are given as they are (not a Job type to extract them from). */
type PlainQueue<D, R> = Queue<D, R, string, D, R, string>;

/** States in which a job will not run again by itself. */
const FINISHED = new Set(['completed', 'failed', 'unknown']);

export interface EnsureJobOptions {
  /**
   * What to do with a finished job of the same id: `keep` returns it (one run
   * per id, e.g. one reconciliation a day), `replace` removes it and adds the
   * job again (a window or action that still needs a run).
   */
  whenFinished: 'keep' | 'replace';
  opts?: Omit<JobsOptions, 'jobId'>;
}

export interface EnsuredJob<J> {
  job: J;
  /** False when a job of that id was waiting, running, or finished and kept. */
  added: boolean;
}

/**
 * The job that holds `jobId`, if one should keep it: one waiting or running,
 * or a finished one under `keep`. A finished one under `replace` is removed,
 * so the id is free for a new job.
 */
export async function jobHoldingId<D, R>(
  queue: PlainQueue<D, R>,
  jobId: string,
  whenFinished: EnsureJobOptions['whenFinished'],
): Promise<Job<D, R> | undefined> {
  const existing: Job<D, R> | undefined = await queue.getJob(jobId);
  if (!existing) return undefined;
  const finished = FINISHED.has(await existing.getState());
  if (!finished || whenFinished === 'keep') return existing;
  await existing.remove();
  return undefined;
}

/**
 * Adds a job under a deterministic id unless one of that id is still waiting
 * or running: enqueueing the same work twice runs it once. BullMQ keeps
 * finished jobs (removeOnComplete/Fail keep a week), and an id whose job is
 * kept cannot be added again, hence `whenFinished`. The queue's default job
 * options apply (the registry sets them); `opts` adds to them.
 */
export async function ensureJob<D, R>(
  queue: PlainQueue<D, R>,
  name: string,
  jobId: string,
  data: D,
  options: EnsureJobOptions,
): Promise<EnsuredJob<Job<D, R>>> {
  const holder = await jobHoldingId(queue, jobId, options.whenFinished);
  if (holder) return { job: holder, added: false };
  return { job: await queue.add(name, data, { ...options.opts, jobId }), added: true };
}
