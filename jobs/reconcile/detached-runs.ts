import { readFileSync } from 'node:fs';

import type { Cluster, Redis } from 'ioredis';

import { runScript } from '../../src/exchange/rate-budget/run-script.ts';
import { SupersededRunError } from '../../src/reconcile/superseded-run-error.ts';

/** What a settled run left for its job: the result, or the error's one line and whether a retry may help. */
export type RunOutcome<R> = { ok: true; value: R } | { ok: false; message: string; retryable: boolean };

/** How a run ended in this process: its outcome, or fenced off (another run of the job took over). */
export type Settlement<R> = RunOutcome<R> | 'superseded';

/**
 * Where runs' outcomes are kept and fenced (run-fence.ts: Postgres). A run's result is written by
 * the run itself, fenced by its token (the work gets it); the store keeps the errors too.
 */
export interface RunStore<R> {
  /** The outcome a settled run left: its result, or its error (taken, so that a retry starts afresh). */
  takeSettled(runId: string): Promise<RunOutcome<R> | undefined>;
  /** The next version of the run's claim (its fencing token); undefined when its result is stored already. */
  fence(runId: string): Promise<number | undefined>;
  /** Keeps the run's error if `token` is still the latest claim's; false when another run took over. */
  storeError(runId: string, token: number, message: string, retryable: boolean): Promise<boolean>;
}

/**
 * How long a process's claim on a job's run lasts without renewal, unless the process is given
 * another (RECONCILE_CLAIM_TTL_MS). A claim is renewed every third of it while the run goes on, so
 * only a process that died (or stalled) loses it, and the job's next pickup elsewhere starts the
 * run again.
 */
export const CLAIM_TTL_MS = 30_000;

const RENEW_SCRIPT = readFileSync(new URL('./claim-renew.lua', import.meta.url), 'utf8');
const RELEASE_SCRIPT = readFileSync(new URL('./claim-release.lua', import.meta.url), 'utf8');

interface Run<R> {
  /** Set once the job has left its slot: the run promotes it (back to waiting) when it settles. */
  wake?: () => Promise<void>;
  settlement?: Settlement<R>;
}

/**
 * The reconciliations this process runs apart from their jobs' worker slots.
 *
 * A reconciliation spends most of its time waiting for its account's rate budgets (1 request/s
 * on spot): held in a worker slot, one account waited while the budgets of all the others sat
 * idle. Its state (the plan, the key sets of the windows it re-reads, what the anchors ask) lives
 * in memory and is cheap to rebuild, unlike an ingest window's, whose pages are worth storing as
 * it goes; so the run goes on in this process while its job moves to delayed, freeing the slot,
 * and the run promotes the job when it settles. The job then takes the outcome from the store
 * (Postgres) in whichever process picks it up.
 *
 * A process that dies takes its runs with it: its claims expire (claimTtlMs) and the delayed
 * jobs, back after the same time, start their runs again elsewhere. A live claim held by another
 * process sends the job back to wait, so one run per job goes on at a time. A process that only
 * stalled (paused, swapped out) past its claim's expiry comes back to a run whose fence has moved
 * on: it writes nothing (SupersededRunError), releases no claim but its own and wakes no job.
 */
export class DetachedRuns<R> {
  readonly #runs = new Map<string, Run<R>>();
  readonly #redis: Redis | Cluster;
  readonly #prefix: string;
  readonly #owner: string;
  readonly #store: RunStore<R>;
  /** How long a claim lasts without renewal: a dead or stalled process's runs are taken over after it. */
  readonly claimTtlMs: number;
  #claims = 0;

  constructor(redis: Redis | Cluster, prefix: string, owner: string, store: RunStore<R>, claimTtlMs = CLAIM_TTL_MS) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#owner = owner;
    this.#store = store;
    this.claimTtlMs = claimTtlMs;
  }

  /** Runs in flight in this process. */
  get size(): number {
    return this.#runs.size;
  }

  /** Whether this process runs the job's reconciliation now. */
  has(runId: string): boolean {
    return this.#runs.has(runId);
  }

  /** The outcome a settled run left for the job (an error is taken, so that a retry starts afresh). */
  takeOutcome(runId: string): Promise<RunOutcome<R> | undefined> {
    return this.#store.takeSettled(runId);
  }

  /**
   * Starts the job's run unless another live process holds it: claims the job in Redis, takes the
   * next fencing token in the store, runs `work(token)` apart from the caller and returns a handle;
   * undefined when the claim is someone else's. `work` writes its result fenced by the token.
   */
  async start(
    runId: string,
    work: (token: number) => Promise<R>,
    isRetryable: (error: unknown) => boolean,
  ): Promise<
    | {
        settledWithin(ms: number): Promise<Settlement<R> | undefined>;
        leaveSlot(wake: () => Promise<void>): Promise<void>;
      }
    | undefined
  > {
    const claim = this.#key(runId);
    this.#claims += 1;
    const holder = `${this.#owner}:${this.#claims}`;
    const claimed = await this.#redis.set(claim, holder, 'PX', this.claimTtlMs, 'NX');
    if (claimed !== 'OK') return undefined;
    const release = () => runScript(this.#redis, RELEASE_SCRIPT, [claim], [holder]).catch(() => undefined);
    let token: number | undefined;
    try {
      token = await this.#store.fence(runId);
    } catch (error) {
      await release();
      throw error;
    }
    const run: Run<R> = {};
    this.#runs.set(runId, run);
    const renew = setInterval(() => {
      runScript(this.#redis, RENEW_SCRIPT, [claim], [holder, this.claimTtlMs]).catch(() => undefined);
    }, this.claimTtlMs / 3);
    renew.unref();
    const done = (async () => {
      run.settlement =
        token === undefined ? await this.#settledElsewhere(runId) : await this.#run(runId, token, work, isRetryable);
      clearInterval(renew);
      // Only this claim is let go: a claim another process took since is left alone.
      await release();
      this.#runs.delete(runId);
      // A superseded run wakes nothing: the job belongs to the run that took it over.
      if (run.settlement !== 'superseded') await run.wake?.().catch(() => undefined);
    })();
    return {
      settledWithin: async (ms) => {
        await Promise.race([done, new Promise((resolve) => setTimeout(resolve, ms).unref())]);
        return run.settlement;
      },
      leaveSlot: async (wake) => {
        run.wake = wake;
        // Settled while the job was moving: nobody else will wake it.
        if (run.settlement !== undefined && run.settlement !== 'superseded') await wake().catch(() => undefined);
      },
    };
  }

  async #run(
    runId: string,
    token: number,
    work: (token: number) => Promise<R>,
    isRetryable: (error: unknown) => boolean,
  ): Promise<Settlement<R>> {
    try {
      return { ok: true, value: await work(token) };
    } catch (error) {
      if (error instanceof SupersededRunError) return 'superseded';
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      const outcome = { ok: false as const, message, retryable: isRetryable(error) };
      try {
        // Kept where the job, picked up by any process, finds it; refused when another run took over.
        if (!(await this.#store.storeError(runId, token, message, outcome.retryable))) return 'superseded';
      } catch {
        // The store gone (Postgres down): the job finds nothing, claims the run again and starts it afresh.
      }
      return outcome;
    }
  }

  /** A run whose result was stored before this claim: nothing to do but hand it to the job. */
  async #settledElsewhere(runId: string): Promise<Settlement<R>> {
    const stored = await this.#store.takeSettled(runId).catch(() => undefined);
    return stored ?? 'superseded';
  }

  #key(runId: string): string {
    return `${this.#prefix}:reconcile-run:claim:${runId}`;
  }
}
