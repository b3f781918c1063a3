import type { PrismaClient } from '../../db/prisma.ts';
import type { ExchangeClient } from '../../exchange/index.ts';
import type { ManagementAction, ManagementStatus } from '../../generated/prisma/client.ts';
import type { ActionInput } from '../action-input.ts';
import type { PlannedRequest } from '../action-plan.ts';
import type { Mirror } from '../mirror-store.ts';
import type { RequestRecorder } from '../request-recorder.ts';
import type { StepResult } from '../run-step.ts';

export interface ActionContext<I extends ActionInput = ActionInput> {
  action: ManagementAction;
  /** The action's parameters with the passphrases opened. */
  input: I;
  plan: PlannedRequest[];
  client: ExchangeClient;
  recorder: RequestRecorder;
  mirror: Mirror;
  prisma: PrismaClient;
}

export interface ActionOutcome {
  status: ManagementStatus;
  result: unknown;
  error?: string | null;
  resolution?: string | null;
}

/**
 * Folds the results of steps run in order (stopping at the first that did
 * not complete) into the action's end state.
 */
export function foldSteps(results: readonly StepResult[], total: number): Omit<ActionOutcome, 'result'> {
  const resolutions = results.flatMap((r) => (r.state !== 'failed' && r.resolution ? [r.resolution] : []));
  const resolution = resolutions.length > 0 ? resolutions.join('\n') : null;
  const done = results.filter((r) => r.state === 'done').length;
  const stop = results.find((r) => r.state !== 'done');
  if (!stop) return { status: done === total ? 'succeeded' : 'partial', resolution };
  if (stop.state === 'ambiguous') return { status: 'ambiguous', resolution };
  const notSent = total - results.length;
  const error = notSent > 0 ? `${stop.error} (${notSent} later request(s) not sent)` : stop.error;
  return { status: done > 0 ? 'partial' : 'failed', error, resolution };
}
