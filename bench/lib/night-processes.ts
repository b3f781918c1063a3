import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';

import type { Cluster, Redis } from 'ioredis';
import type pg from 'pg';

import type { ProcessGroup } from './process-cpu.ts';

/**
 * The processes a fleet night runs on, grouped as bench:fleet-night reports their CPU. Postgres
 * and Redis are assumed on this host (their pids are read from /proc); a group whose pids are not
 * here reports 0.
 */
export async function nightProcesses(
  pool: pg.Pool,
  redis: Redis | Cluster,
  workers: readonly ChildProcess[],
  simulator: ChildProcess,
): Promise<ProcessGroup[]> {
  const pidsOf = (children: readonly ChildProcess[]) => children.flatMap((c) => (c.pid === undefined ? [] : [c.pid]));

  // The server's own processes serve every database on it: listed once, reported apart.
  const background = await pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname IS NULL AND backend_type <> 'client backend'`,
  );
  const serverPids = background.rows.map((r) => r.pid);
  const postmaster = serverPids.length > 0 ? await parentOf(serverPids[0]!) : undefined;
  if (postmaster !== undefined) serverPids.push(postmaster);

  // On a cluster this is one node's pid; the bench runs on one server.
  const info = await redis.info('server');
  const redisPid = Number(/process_id:(\d+)/.exec(info)?.[1]);

  return [
    { name: `worker processes (${workers.length})`, pids: () => pidsOf(workers) },
    {
      name: 'Postgres backends of the bench database',
      pids: async () =>
        (
          await pool.query<{ pid: number }>(
            `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
          )
        ).rows.map((r) => r.pid),
    },
    { name: 'Postgres server processes (shared by every database)', pids: () => serverPids },
    { name: 'Redis server (shared with other users)', pids: () => (Number.isInteger(redisPid) ? [redisPid] : []) },
    { name: 'simulator', pids: () => pidsOf([simulator]) },
    { name: 'bench process (enqueues, polls)', pids: () => [process.pid] },
  ];
}

/** The parent pid from /proc/<pid>/stat (field 4), when the process is on this host. */
async function parentOf(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}
