import { Worker } from 'node:worker_threads';

import { LedgerlineError } from '../../errors/index.ts';
import type { FilingComputation, FilingComputed } from './compute-filing-figures.ts';

export interface FilingRequest {
  readonly id: number;
  readonly job: FilingComputation;
}

export type FilingReply =
  | { id: number; kind: 'computed'; computed: FilingComputed }
  | { id: number; kind: 'failed'; name: string; message: string; code: string | undefined; retryable: boolean };

/** A computation failed in its thread: the error's class, code and message as thrown there; its retryability kept. */
export class FilingComputationError extends LedgerlineError {
  readonly retryable: boolean;
  constructor(name: string, message: string, code: string | undefined, retryable: boolean) {
    super(`${name}: ${message}`, { code: code ?? 'FILING_FAILED' });
    this.retryable = retryable;
  }
}

/**
 * The thread. Run from the sources (tsx), its module is TypeScript: the thread registers tsx first,
 * as bin/ledgerline.js does, since a thread inherits no loader hooks. Compiled, it is the
 * JavaScript beside this file.
 */
function startThread(): Worker {
  const fromSources = import.meta.url.endsWith('.ts');
  const entry = new URL(`./filing-thread.${fromSources ? 'ts' : 'js'}`, import.meta.url);
  if (!fromSources) return new Worker(entry);
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(boot, { eval: true });
}

interface Slot {
  worker: Worker;
  busy: number;
}

/**
 * Threads that walk the filing figures (the walk is the account's whole history: seconds of
 * decimal arithmetic), so that the process asking, the web process above all, keeps answering.
 * Started on first use (or all at once by `warm`), one per computation running at once up to `size`, kept for the next; a
 * computation goes to the thread with the least in hand. `close` ends them.
 */
export class FilingThreads {
  readonly #slots: Slot[] = [];
  readonly #pending = new Map<
    number,
    { resolve: (c: FilingComputed) => void; reject: (e: Error) => void; slot: Slot }
  >();
  #nextId = 0;

  constructor(private readonly size = 2) {}

  /**
   * Starts every thread now, so that the first computation does not also pay for loading the walk's
   * modules in a new thread (seconds from the sources): what a worker does when it starts.
   */
  warm(): void {
    while (this.#slots.length < this.size) this.#startSlot();
  }

  compute(job: FilingComputation): Promise<FilingComputed> {
    const slot = this.#slot();
    const id = this.#nextId++;
    slot.busy++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, slot });
      slot.worker.postMessage({ id, job } satisfies FilingRequest);
    });
  }

  async close(): Promise<void> {
    const slots = this.#slots.splice(0);
    await Promise.all(slots.map(({ worker }) => worker.terminate()));
  }

  #slot(): Slot {
    const idle = this.#slots.find((s) => s.busy === 0);
    if (idle !== undefined) return idle;
    if (this.#slots.length < this.size) return this.#startSlot();
    return this.#slots.reduce((a, b) => (b.busy < a.busy ? b : a));
  }

  #startSlot(): Slot {
    const slot: Slot = { worker: startThread(), busy: 0 };
    slot.worker.on('message', (reply: FilingReply) => this.#settle(reply));
    slot.worker.on('error', (error) => this.#failSlot(slot, error));
    this.#slots.push(slot);
    return slot;
  }

  #settle(reply: FilingReply): void {
    const pending = this.#pending.get(reply.id);
    if (pending === undefined) return;
    this.#pending.delete(reply.id);
    pending.slot.busy--;
    if (reply.kind === 'computed') pending.resolve(reply.computed);
    else pending.reject(new FilingComputationError(reply.name, reply.message, reply.code, reply.retryable));
  }

  /** A thread that died takes its computations with it: they fail (BullMQ retries them), and the slot is replaced. */
  #failSlot(slot: Slot, error: Error): void {
    for (const [id, pending] of this.#pending) {
      if (pending.slot !== slot) continue;
      this.#pending.delete(id);
      pending.reject(error);
    }
    const at = this.#slots.indexOf(slot);
    if (at >= 0) this.#slots.splice(at, 1);
    void slot.worker.terminate();
  }
}
