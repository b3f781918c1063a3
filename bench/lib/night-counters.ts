import type pg from 'pg';

import { processTicks } from './process-cpu.ts';

/**
 * Counters of one step of a night that do not depend on the machine's load: the Postgres blocks
 * the bench's database touched (pg_stat_database: shared hits + reads, and temp files), the CPU
 * its backends spent (from /proc, sampled, since the statistics views hold no CPU time) and the
 * CPU of this process (the workers run in it).
 *
 * pg_stat_statements would split blocks by statement, but it needs shared_preload_libraries and a
 * restart of a server shared with other work: pg_stat_database is the per-database total it
 * would sum to. A backend publishes its counters when idle, at most every 10 s
 * (PGSTAT_IDLE_INTERVAL in PostgreSQL 15), so a step's figures are read after that pause.
 */
export interface StepCounters {
  blocks: number;
  tempBlocks: number;
  pgCpuSeconds: number;
  nodeCpuSeconds: number;
}

export const STATS_FLUSH_MS = 11_000;
const TICKS_PER_SECOND = 100;
const SAMPLE_MS = 200;

async function databaseBlocks(monitor: pg.Client): Promise<{ blocks: number; temp: number }> {
  // A fresh snapshot: the statistics of other backends as last published.
  await monitor.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await monitor.query<{ blocks: string; temp: string }>(
    `SELECT (blks_hit + blks_read)::text AS blocks, (temp_bytes / 8192)::text AS temp
       FROM pg_stat_database WHERE datname = current_database()`,
  );
  return { blocks: Number(rows[0]!.blocks), temp: Number(rows[0]!.temp) };
}

/** Samples the CPU ticks of every backend of the database but the monitor's own. */
class BackendCpu {
  readonly #monitor: pg.Client;
  readonly #baseline = new Map<number, number>();
  readonly #latest = new Map<number, number>();
  #timer: NodeJS.Timeout | undefined;
  #sampling: Promise<void> = Promise.resolve();

  constructor(monitor: pg.Client) {
    this.#monitor = monitor;
  }

  async start(): Promise<void> {
    for (const [pid, ticks] of await this.#read()) this.#baseline.set(pid, ticks);
    this.#timer = setInterval(() => {
      this.#sampling = this.#sampling.then(() => this.#sample());
    }, SAMPLE_MS);
  }

  async stop(): Promise<number> {
    clearInterval(this.#timer);
    await this.#sampling;
    await this.#sample();
    let ticks = 0;
    for (const [pid, latest] of this.#latest) ticks += latest - (this.#baseline.get(pid) ?? 0);
    return ticks / TICKS_PER_SECOND;
  }

  async #sample(): Promise<void> {
    for (const [pid, ticks] of await this.#read()) this.#latest.set(pid, ticks);
  }

  async #read(): Promise<Map<number, number>> {
    const { rows } = await this.#monitor.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    );
    const out = new Map<number, number>();
    for (const { pid } of rows) {
      const ticks = await processTicks(pid);
      if (ticks !== undefined) out.set(pid, ticks);
    }
    return out;
  }
}

/** Runs one step and returns its counters (waiting for the backends to publish theirs). */
export async function measureStep<T>(
  monitor: pg.Client,
  step: () => Promise<T>,
): Promise<{ result: T; counters: StepCounters }> {
  const before = await databaseBlocks(monitor);
  const cpu = new BackendCpu(monitor);
  await cpu.start();
  const node = process.cpuUsage();
  const result = await step();
  const used = process.cpuUsage(node);
  const pgCpuSeconds = await cpu.stop();
  await new Promise((resolve) => setTimeout(resolve, STATS_FLUSH_MS));
  const after = await databaseBlocks(monitor);
  return {
    result,
    counters: {
      blocks: after.blocks - before.blocks,
      tempBlocks: after.temp - before.temp,
      pgCpuSeconds,
      nodeCpuSeconds: (used.user + used.system) / 1e6,
    },
  };
}
