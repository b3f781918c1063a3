import type { Cluster, Redis } from 'ioredis';

/** What a settled run left for its job: the result, or the error's one line and whether a retry may help. */
export type RunOutcome<R> = { ok: true; value: R } | { ok: false; message: string; retryable: boolean };

/**
 * How long a process's claim on a job's run lasts without renewal. A claim is renewed every third
 * of it while the run goes on, so only a process that died loses it, and the job's next pickup
 * elsewhere starts the run again.
 */
export const CLAIM_TTL_MS = 30_000;
/** How long a settled run's outcome waits in Redis for its job to come and take it. */
const OUTCOME_TTL_MS = 24 * 3_600_000;

interface Run {
  /** Set once the job has left its slot: the run promotes it (back to waiting) when it settles. */
  wake?: () => Promise<void>;
  settled: boolean;
  outcome?: RunOutcome<unknown>;
}

/**
 * The reconciliations this process runs apart from their jobs' worker slots.
 *
 * A reconciliation spends most of its time waiting for its account's rate budgets (1 request/s
 * on spot): held in a worker slot, one account waited while the budgets of all the others sat
 * idle. Its state (the plan, the key sets of the windows it re-reads, what the anchors ask) lives
 * in memory and is cheap to rebuild, unlike an ingest window's, whose pages are worth storing as
 * it goes; so the run goes on in this process while its job moves to delayed, freeing the slot,
 * and the run promotes the job when it settles. The job then takes the outcome from Redis in
 * whichever process picks it up.
 *
 * A process that dies takes its runs with it: its claims expire (CLAIM_TTL_MS) and the delayed
 * jobs, back after the same time, start their runs again elsewhere. A live claim held by another
 * process sends the job back to wait, so one run per job goes on at a time.
 */
export class DetachedRuns {
  readonly #runs = new Map<string, Run>();
  readonly #redis: Redis | Cluster;
  readonly #prefix: string;
  readonly #owner: string;

  constructor(redis: Redis | Cluster, prefix: string, owner: string) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#owner = owner;
  }

  /** Runs in flight in this process. */
  get size(): number {
    return this.#runs.size;
  }

  /** Whether this process runs the job's reconciliation now. */
  has(runId: string): boolean {
    return this.#runs.has(runId);
  }

  /** The outcome a settled run left for the job, taken (deleted) so that a retry starts afresh. */
  async takeOutcome<R>(runId: string): Promise<RunOutcome<R> | undefined> {
    const key = this.#key('outcome', runId);
    const stored = await this.#redis.get(key);
    if (stored === null) return undefined;
    await this.#redis.del(key);
    return JSON.parse(stored) as RunOutcome<R>;
  }

  /**
   * Starts the job's run unless another live process holds it: claims the job, runs `work` apart
   * from the caller and returns a handle; undefined when the claim is someone else's.
   */
  async start<R>(
    runId: string,
    work: () => Promise<R>,
    isRetryable: (error: unknown) => boolean,
  ): Promise<
    | {
        settledWithin(ms: number): Promise<RunOutcome<R> | undefined>;
        leaveSlot(wake: () => Promise<void>): Promise<void>;
      }
    | undefined
  > {
    const claim = this.#key('claim', runId);
    const claimed = await this.#redis.set(claim, this.#owner, 'PX', CLAIM_TTL_MS, 'NX');
    if (claimed !== 'OK') return undefined;
    const run: Run = { settled: false };
    this.#runs.set(runId, run);
    const renew = setInterval(() => {
      this.#redis.pexpire(claim, CLAIM_TTL_MS).catch(() => undefined);
    }, CLAIM_TTL_MS / 3);
    renew.unref();
    const done = (async () => {
      let outcome: RunOutcome<R>;
      try {
        outcome = { ok: true, value: await work() };
      } catch (error) {
        const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        outcome = { ok: false, message, retryable: isRetryable(error) };
      }
      clearInterval(renew);
      run.outcome = outcome;
      try {
        // Left where the job, picked up by any process, finds it; then the claim is let go.
        await this.#redis.set(this.#key('outcome', runId), JSON.stringify(outcome), 'PX', OUTCOME_TTL_MS);
        await this.#redis.del(claim);
      } catch {
        // Redis gone (the process closing): the job comes back after the claim expires and runs again.
      }
      this.#runs.delete(runId);
      // Settled only once the outcome is where the job will look for it.
      run.settled = true;
      await run.wake?.().catch(() => undefined);
    })();
    return {
      settledWithin: async (ms) => {
        await Promise.race([done, new Promise((resolve) => setTimeout(resolve, ms).unref())]);
        return run.settled ? (run.outcome as RunOutcome<R>) : undefined;
      },
      leaveSlot: async (wake) => {
        run.wake = wake;
        // Settled while the job was moving: nobody else will wake it.
        if (run.settled) await wake().catch(() => undefined);
      },
    };
  }

  #key(kind: 'claim' | 'outcome', runId: string): string {
    return `${this.#prefix}:reconcile-run:${kind}:${runId}`;
  }
}
