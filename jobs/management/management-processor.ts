import type { Job } from 'bullmq';

import { SecretBox } from '../../src/crypto/secret-box.ts';
import type { ManagementStatus } from '../../src/generated/prisma/enums.ts';
import type { Logger } from '../../src/logging/logger.ts';
import { runAction } from '../../src/management/run-action.ts';
import type { ManagementJob } from '../payloads/management-job.ts';
import type { Runtime } from '../runtime.ts';

export interface ManagementJobResult {
  actionId: string;
  status: ManagementStatus;
}

/**
 * Runs one recorded action. The job is never retried by BullMQ (attempts 1):
 * what happens after a lost answer is the action's own decision, made from
 * the exchange's state. A job taken over from a dead worker resumes the
 * action from its recorded requests. The job's return value holds no result
 * data: that is in the audit row.
 */
export function createManagementProcessor(runtime: Runtime, log: Logger) {
  const deps = {
    prisma: runtime.prisma,
    pool: runtime.pool,
    clients: runtime.clients,
    box: new SecretBox(runtime.config.masterKey),
    log,
  };
  return async (job: Job<ManagementJob>): Promise<ManagementJobResult> => {
    const action = await runAction(deps, job.data.actionId);
    return { actionId: action.id, status: action.status };
  };
}
