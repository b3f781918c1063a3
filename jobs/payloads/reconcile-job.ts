import { DateTime } from 'luxon';

import type { RecountMode } from '../../src/reconcile/recount-mode.ts';

/** Payload of a reconciliation job: the account by id and the options. Never a secret. */
export interface ReconcileJob {
  accountId: string;
  recount: RecountMode;
  /** Check the whole history now, whatever the schedule says (absent: the schedule decides). */
  full?: boolean;
}

export interface ReconcileJobResult {
  reportId: string;
  passed: boolean;
  failedChecks: string[];
}

/**
 * One job id per (account, UTC day): the nightly flow enqueueing twice, or a
 * retried schedule, reconciles an account once that day. (BullMQ reserves ':'.)
 */
export function reconcileJobId(accountId: string, day: Date): string {
  return `reconcile.${accountId}.${DateTime.fromJSDate(day, { zone: 'utc' }).toISODate()}`;
}
