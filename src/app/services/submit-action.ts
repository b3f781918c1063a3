import { SecretBox } from '../../crypto/secret-box.ts';
import type { ManagementAction } from '../../generated/prisma/client.ts';
import { type ActionInput, redactInput, splitSecrets } from '../../management/action-input.ts';
import { planAction, type PlannedRequest } from '../../management/action-plan.ts';
import { isFinished, recordAction } from '../../management/action-store.ts';
import { idempotencyKey } from '../../management/idempotency.ts';
import { checkLocalLimits } from '../../management/limits.ts';
import type { AppRuntime } from '../app-runtime.ts';

export interface ActionRequest {
  /** A registered account's name. */
  account: string;
  input: ActionInput;
  idempotencyKey?: string;
}

export interface PreparedAction {
  accountId: string;
  key: string;
  plan: PlannedRequest[];
  /** An action the idempotency key already names, if any. */
  earlier: ManagementAction | null;
}

/**
 * Everything that can be checked before anything is written or sent: the
 * account, every rule of the spec for every request, and (for a new action)
 * the limits the local mirror knows. Throws a typed error naming the field.
 */
export async function prepareAction(runtime: AppRuntime, request: ActionRequest): Promise<PreparedAction> {
  const account = await runtime.accounts.get(request.account);
  const plan = planAction(request.input);
  const split = splitSecrets(request.input);
  const key = idempotencyKey(account.id, split.command, split.params, request.idempotencyKey);
  const earlier = await runtime.prisma.managementAction.findUnique({ where: { idempotencyKey: key } });
  // The same command again is answered by its earlier outcome, whatever the mirror shows since.
  if (!earlier) await checkLocalLimits(runtime.prisma, account.id, request.input);
  return { accountId: account.id, key, plan, earlier };
}

export interface SubmittedAction {
  action: ManagementAction;
  /** True when the idempotency key named an earlier action: nothing new was recorded or sent. */
  existing: boolean;
  plan: PlannedRequest[];
}

/** Records the action's audit row (passphrases sealed) and enqueues its job, which carries only the id. */
export async function submitAction(runtime: AppRuntime, request: ActionRequest): Promise<SubmittedAction> {
  const prepared = await prepareAction(runtime, request);
  const box = new SecretBox(runtime.config.masterKey);
  const recorded = await recordAction(
    runtime.prisma,
    box,
    prepared.accountId,
    splitSecrets(request.input),
    prepared.key,
    redactInput(request.input),
  );
  if (!isFinished(recorded.action.status)) await enqueueAction(runtime, recorded.action.id);
  return { ...recorded, plan: prepared.plan };
}

/**
 * Adds the action's job unless one is waiting or running; returns whether it
 * added one. A job that ended while its action did not (a worker lost
 * mid-way) is replaced: the action resumes from its recorded requests.
 */
export async function enqueueAction(runtime: AppRuntime, actionId: string): Promise<boolean> {
  return runtime.jobs.enqueueAction(actionId);
}

/** Waits until the action has ended and returns its row. */
export async function waitForAction(
  runtime: AppRuntime,
  actionId: string,
  options: { pollMs?: number; timeoutMs?: number } = {},
): Promise<ManagementAction> {
  const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  for (;;) {
    const action = await runtime.prisma.managementAction.findUniqueOrThrow({ where: { id: actionId } });
    if (isFinished(action.status)) return action;
    if (Date.now() > deadline) throw new Error(`action ${actionId} not finished after ${options.timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 200));
  }
}

/** How many workers listen on the management queue (to warn when none does). */
export function managementWorkerCount(runtime: AppRuntime): Promise<number> {
  return runtime.jobs.workerCount('management');
}
