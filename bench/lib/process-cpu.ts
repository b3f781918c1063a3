import { readFile } from 'node:fs/promises';

/**
 * CPU seconds that groups of processes spend over a span, read from /proc (Linux only): utime +
 * stime of /proc/<pid>/stat, which for a process counts every one of its threads (libuv's pool,
 * V8's GC threads). A group's pids may come and go (Postgres backends open and close with the
 * pools), so each group's pids are listed again and sampled every SAMPLE_MS: a process that exits
 * between two samples loses at most its last SAMPLE_MS. A pid first met after the start counts
 * from zero (it was born inside the span).
 */
const TICKS_PER_SECOND = 100; // USER_HZ on every Linux this project runs on
const SAMPLE_MS = 250;

/** utime + stime of the process, in ticks; undefined once it has exited (or on another host). */
export async function processTicks(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

export interface ProcessGroup {
  name: string;
  /** The group's pids now (called at every sample). */
  pids: () => Promise<readonly number[]> | readonly number[];
}

export class ProcessCpu {
  readonly #groups: readonly ProcessGroup[];
  readonly #baseline = new Map<string, Map<number, number>>();
  readonly #latest = new Map<string, Map<number, number>>();
  #timer: NodeJS.Timeout | undefined;
  #sampling: Promise<void> = Promise.resolve();

  constructor(groups: readonly ProcessGroup[]) {
    this.#groups = groups;
  }

  async start(): Promise<void> {
    for (const group of this.#groups) {
      this.#baseline.set(group.name, await this.#read(group));
      this.#latest.set(group.name, new Map());
    }
    this.#timer = setInterval(() => {
      this.#sampling = this.#sampling.then(() => this.#sample());
    }, SAMPLE_MS);
  }

  /** Stops sampling; CPU seconds by group name. */
  async stop(): Promise<Record<string, number>> {
    clearInterval(this.#timer);
    await this.#sampling;
    await this.#sample();
    const out: Record<string, number> = {};
    for (const group of this.#groups) {
      const baseline = this.#baseline.get(group.name)!;
      let ticks = 0;
      for (const [pid, latest] of this.#latest.get(group.name)!) ticks += latest - (baseline.get(pid) ?? 0);
      out[group.name] = ticks / TICKS_PER_SECOND;
    }
    return out;
  }

  async #sample(): Promise<void> {
    for (const group of this.#groups) {
      const latest = this.#latest.get(group.name)!;
      for (const [pid, ticks] of await this.#read(group)) latest.set(pid, ticks);
    }
  }

  async #read(group: ProcessGroup): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    for (const pid of await group.pids()) {
      const ticks = await processTicks(pid);
      if (ticks !== undefined) out.set(pid, ticks);
    }
    return out;
  }
}
