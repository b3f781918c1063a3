import { readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';

/**
 * The CPU seconds (user + system) one Postgres backend spends on each COPY statement, its output
 * read and dropped: a figure the machine's load hardly moves, unlike wall time. Read from
 * /proc/<backend pid>/stat, so only when Postgres runs on this machine (else null). The statements
 * alternate, `repeats` times each, in one session with parallel workers off (a worker's CPU is
 * not the backend's); the median of each is returned, in the order given.
 */
export async function backendCpuSeconds(
  databaseUrl: string,
  statements: readonly string[],
  repeats: number,
): Promise<number[] | null> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("SET TIME ZONE 'UTC'");
    await client.query('SET max_parallel_workers_per_gather = 0');
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const stat = `/proc/${rows[0]!.pid}/stat`;
    if ((await cpuOf(stat)) === null) return null;
    const runs = statements.map(() => [] as number[]);
    for (let i = 0; i < repeats; i++) {
      for (const [n, statement] of statements.entries()) {
        const before = (await cpuOf(stat))!;
        await pipeline(client.query(copyTo(statement)), new Writable({ write: (_chunk, _encoding, done) => done() }));
        runs[n]!.push((await cpuOf(stat))! - before);
      }
    }
    return runs.map((r) => r.sort((a, b) => a - b)[Math.floor(r.length / 2)]!);
  } finally {
    await client.end();
  }
}

/** The CPU seconds (user + system) backend `pid` has used so far, or null when /proc cannot tell. */
export function backendCpuNow(pid: number): Promise<number | null> {
  return cpuOf(`/proc/${pid}/stat`);
}

// utime + stime (fields 14 and 15 of /proc/<pid>/stat, after the parenthesised name), in clock
// ticks of 1/100 s (USER_HZ, 100 on Linux whatever the kernel's HZ).
async function cpuOf(stat: string): Promise<number | null> {
  const text = await readFile(stat, 'utf8').catch(() => null);
  if (text === null) return null;
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
