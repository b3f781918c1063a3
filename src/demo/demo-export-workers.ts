import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

import type { Config } from '../config/config.ts';
import { PermanentError } from '../errors/index.ts';
import type { DemoRun, WrittenReport } from './demo-exports.ts';

/** What a file's export needs of the configuration (plain data: it crosses to a thread). */
export type ExportConfig = Pick<Config, 'databaseUrl' | 'valuation'>;

export interface ExportJob {
  id: number;
  runs: DemoRun[];
  /** Each run's inputs fingerprint (demo-inputs.ts), stated in its manifest. */
  inputs?: string[] | undefined;
  config: ExportConfig;
  /** What the files name the account by (plain data: it crosses to a thread). */
  account: { id: string; name: string };
  exportDir: string;
}

export type WorkerReply =
  | { id: number; kind: 'inputs-read' }
  | { id: number; kind: 'written'; written: WrittenReport[] }
  | { id: number; kind: 'failed'; name: string; message: string; code: string | undefined };

/** A group of the demo's files failed in its thread: the error's class, code and message, as thrown there. */
export class DemoExportFailedError extends PermanentError {
  constructor(name: string, message: string, code: string | undefined) {
    super(`${name}: ${message}`, { code: code ?? 'DEMO_EXPORT_FAILED' });
  }
}

/**
 * The export thread. Run from the sources (tsx, as `npm run demo` does), its module is TypeScript: the
 * thread registers tsx first, as bin/ledgerline.js does, since a thread inherits no loader hooks.
 * Compiled (dist/), it is the JavaScript beside this file.
 */
function startThread(logFile: string | undefined): Worker {
  const fromSources = import.meta.url.endsWith('.ts');
  const entry = new URL(`./demo-export-worker.${fromSources ? 'ts' : 'js'}`, import.meta.url);
  const workerData = { logFile };
  if (!fromSources) return new Worker(entry, { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(boot, { eval: true, workerData });
}

interface Pending {
  resolve: (written: WrittenReport[]) => void;
  reject: (error: Error) => void;
  onInputsRead: () => void;
}

/**
 * Threads that write the demo's files. The exports are CPU-bound in Node (the gains walks' decimal
 * arithmetic, the rows' encoding), and one thread uses one core however many files run side by side
 * in it: two threads use the machine's two cores, beside Postgres. A group goes to the thread with
 * the fewest groups in hand. The threads start with the pool (their modules load while the backfill
 * waits on the exchange) and end with `close`.
 */
export class DemoExportWorkers {
  /** Each thread and the work in its hands (the groups' weights). */
  readonly #workers: { worker: Worker; busy: number }[] = [];
  readonly #pending = new Map<number, Pending & { weight: number }>();
  #nextId = 0;

  constructor(
    threads = Math.max(1, Math.min(2, availableParallelism())),
    /** Where the threads log (the demo's log file); default: stderr. */
    logFile?: string,
  ) {
    for (let i = 0; i < threads; i++) {
      const worker = startThread(logFile);
      const slot = { worker, busy: 0 };
      worker.on('message', (reply: WorkerReply) => this.#settle(slot, reply));
      worker.on('error', (error) => this.#failAll(error));
      this.#workers.push(slot);
    }
  }

  /**
   * Writes the group's files in one thread, the one with the least work in hand; `onInputsRead` once
   * per file whose walk has read its inputs. `weight`: the group's work, in any unit shared by the
   * caller's groups (its files, by default).
   */
  write(job: Omit<ExportJob, 'id'>, onInputsRead: () => void, weight = job.runs.length): Promise<WrittenReport[]> {
    const id = this.#nextId++;
    const slot = this.#workers.reduce((a, b) => (b.busy < a.busy ? b : a));
    slot.busy += weight;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, onInputsRead, weight });
      slot.worker.postMessage({ ...job, id } satisfies ExportJob);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map(({ worker }) => worker.terminate()));
  }

  #settle(slot: { busy: number }, reply: WorkerReply): void {
    const pending = this.#pending.get(reply.id);
    if (pending === undefined) return;
    if (reply.kind === 'inputs-read') {
      pending.onInputsRead();
      return;
    }
    this.#pending.delete(reply.id);
    slot.busy -= pending.weight;
    if (reply.kind === 'written') pending.resolve(reply.written);
    else pending.reject(new DemoExportFailedError(reply.name, reply.message, reply.code));
  }

  #failAll(error: Error): void {
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }
}
