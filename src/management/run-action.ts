import type pg from 'pg';

import type { SecretBox } from '../crypto/secret-box.ts';
import type { PrismaClient } from '../db/prisma.ts';
import { LedgerlineError } from '../errors/index.ts';
import type { ExchangeClient } from '../exchange/index.ts';
import type { ManagementAction } from '../generated/prisma/client.ts';
import type { Logger } from '../logging/logger.ts';
import { type ActionInput, type Command, joinSecrets } from './action-input.ts';
import { planAction } from './action-plan.ts';
import { claimAction, finishAction, openSecrets, storedParams } from './action-store.ts';
import type { ActionContext, ActionOutcome } from './actions/action-context.ts';
import { createApiKey, modifyApiKey } from './actions/api-keys.ts';
import { batchCancelOrders, cancelAllOrders } from './actions/cancel-orders.ts';
import { batchCreateSubAccounts, createSubAccount } from './actions/create-sub-account.ts';
import { Mirror } from './mirror-store.ts';
import { RequestRecorder } from './request-recorder.ts';
import { takeRunLock } from './run-lock.ts';

export interface ManagementDeps {
  prisma: PrismaClient;
  /** For the run lock: one connection held for the length of a run. */
  pool: pg.Pool;
  clients: { forAccount(accountId: string): Promise<ExchangeClient> };
  box: SecretBox;
  log: Logger;
}

/** The input of one command, e.g. `InputOf<'apikey_create'>`. */
type InputOf<C extends Command> = Extract<ActionInput, { command: C }>;

/** Each command's runner, typed with that command's own input: a runner for another command does not fit. */
const RUNNERS: { [C in Command]: (ctx: ActionContext<InputOf<C>>) => Promise<ActionOutcome> } = {
  subaccount_create: createSubAccount,
  subaccount_batch_create: batchCreateSubAccounts,
  apikey_create: createApiKey,
  apikey_modify: modifyApiKey,
  orders_cancel_all: cancelAllOrders,
  orders_batch_cancel: batchCancelOrders,
};

/**
 * Indexing the mapped type with a generic command gives the runner of that command, so the
 * compiler checks the context against it without a cast (TypeScript's correlated-union pattern).
 */
function runCommand<C extends Command>(command: C, ctx: ActionContext<InputOf<C>>): Promise<ActionOutcome> {
  return RUNNERS[command](ctx);
}

/**
 * Runs (or resumes) one recorded action to its end and completes its audit
 * row. Returns the finished row; an action that had already ended, or that
 * another run is carrying out right now, is returned as it is, untouched.
 */
export async function runAction(deps: ManagementDeps, actionId: string): Promise<ManagementAction> {
  const release = await takeRunLock(deps.pool, actionId, deps.log);
  if (!release) {
    deps.log.info({ actionId }, 'management action discarded: another run is carrying it out');
    return deps.prisma.managementAction.findUniqueOrThrow({ where: { id: actionId } });
  }
  try {
    return await runLocked(deps, actionId);
  } finally {
    await release();
  }
}

async function runLocked(deps: ManagementDeps, actionId: string): Promise<ManagementAction> {
  const action = await claimAction(deps.prisma, actionId);
  if (!action) return deps.prisma.managementAction.findUniqueOrThrow({ where: { id: actionId } });
  const log = deps.log.child({ actionId, command: action.command, accountId: action.accountId });
  log.info({ run: action.runs }, 'management action started');
  const recorder = await RequestRecorder.load(deps.prisma, action.id, log);
  let outcome: ActionOutcome;
  try {
    const input: ActionInput = joinSecrets(action.command, storedParams(action), openSecrets(deps.box, action));
    const ctx: ActionContext = {
      action,
      input,
      plan: planAction(input),
      client: await deps.clients.forAccount(action.accountId),
      recorder,
      mirror: new Mirror(deps.box),
      prisma: deps.prisma,
    };
    outcome = await runCommand(input.command, ctx);
  } catch (error) {
    // Not an answer of the exchange (a bad stored row, the database, a bug): the audit row says so.
    const unsettled =
      (await deps.prisma.managementRequest.count({
        where: { actionId, status: { in: ['sent', 'ambiguous'] } },
      })) > 0;
    const message =
      error instanceof LedgerlineError ? error.toOneLine() : `${(error as Error).name}: ${(error as Error).message}`;
    log.error({ err: error }, 'management action stopped by an error');
    outcome = {
      status: unsettled ? 'ambiguous' : 'failed',
      result: null,
      error: message,
      resolution: unsettled
        ? 'a request was out when the action stopped; its outcome is unknown and nothing was repeated'
        : null,
    };
  }
  const finished = await finishAction(deps.prisma, action, outcome);
  log.info({ status: finished.status, requests: recorder.count }, 'management action finished');
  return finished;
}
