import type pg from 'pg';

import { submitAction, waitForAction } from '../../src/app/services/submit-action.ts';
import type { ManagementAction } from '../../src/generated/prisma/client.ts';
import type { ActionInput } from '../../src/management/action-input.ts';
import type { Pipeline } from '../helpers/pipeline.ts';

/** Submits an action as the CLI does and waits for its end (a worker must be running). */
export async function runToEnd(
  pipeline: Pipeline,
  input: ActionInput,
  options: { account?: string; idempotencyKey?: string } = {},
): Promise<ManagementAction & { existing: boolean }> {
  const submitted = await submitAction(pipeline.runtime, {
    account: options.account ?? 'demo',
    input,
    idempotencyKey: options.idempotencyKey,
  });
  const action = await waitForAction(pipeline.runtime, submitted.action.id, { pollMs: 50, timeoutMs: 25_000 });
  return { ...action, existing: submitted.existing };
}

/** The simulator's requests to one endpoint path since its log was last cleared. */
export function requestsTo(pipeline: Pipeline, path: string) {
  return pipeline.sim.requestLog.list().filter((entry) => entry.path === path);
}

export const PATHS = {
  createSub: '/api/v3/user/create-sub',
  batchCreate: '/api/v2/user/batch-create-subaccount-and-apikey',
  createKey: '/api/v2/user/create-virtual-subaccount-apikey',
  modifyKey: '/api/v2/user/modify-virtual-subaccount-apikey',
  cancelAll: '/api/v3/trade/cancel-symbol-order',
  batchCancel: '/api/v2/spot/trade/batch-cancel-order',
} as const;

/** Eight English letters, unique per call: sub-account names are global on the exchange. */
export function subName(seed: number): string {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  let n = seed;
  let name = '';
  for (let k = 0; k < 8; k++) {
    name += letters[n % 26];
    n = Math.floor(n / 26) + k * 7;
  }
  return `${name[0]!.toUpperCase()}${name.slice(1)}`;
}

/**
 * Drops the connection that holds an action's run lock, as the death of its
 * worker process would: Postgres frees the lock with it.
 */
export async function dropRunLockHolder(pool: pg.Pool, actionId: string): Promise<number> {
  const result = await pool.query<{ pid: number }>(
    `SELECT l.pid FROM pg_locks l, (SELECT hashtextextended($1, 0) AS k) h
      WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND l.classid = ((h.k >> 32) & 4294967295)::oid AND l.objid = (h.k & 4294967295)::oid`,
    [`management-action:${actionId}`],
  );
  // Wait (up to 5 s) for the backend to exit: until it has, it still holds the lock.
  for (const { pid } of result.rows) await pool.query('SELECT pg_terminate_backend($1, 5000)', [pid]);
  return result.rows.length;
}
