import type { Command } from 'commander';

import { createRuntime } from '../../../jobs/composition/create-runtime.ts';
import { startWorkers } from '../../../jobs/composition/workers.ts';
import type { AppRuntime } from '../../app/app-runtime.ts';
import { managementWorkerCount, prepareAction, submitAction, waitForAction } from '../../app/services/submit-action.ts';
import type { Config } from '../../config/config.ts';
import type { ManagementAction } from '../../generated/prisma/client.ts';
import type { ActionInput } from '../../management/action-input.ts';
import { type PlannedRequest, redactBody } from '../../management/action-plan.ts';
import { ActionFailedError } from '../../management/errors.ts';

export interface ActionCommandOptions {
  account: string;
  idempotencyKey?: string;
  dryRun?: boolean;
  withWorker?: boolean;
}

/** Options every management command shares. */
export function actionOptions(command: Command): Command {
  return command
    .requiredOption('--account <name>', 'a registered account (its main-account key)')
    .option(
      '--idempotency-key <key>',
      'names this action: the same key never runs twice (default: derived from the command)',
    )
    .option('--dry-run', 'check the input and print the exact requests, send nothing')
    .option('--with-worker', 'process the job in this process too (no separate `ledgerline worker` needed)');
}

/** Shared by every management command: check, then print the plan (--dry-run) or run it and print the outcome. */
export async function runActionCommand(config: Config, input: ActionInput, options: ActionCommandOptions) {
  const runtime = createRuntime(config);
  const workers = options.withWorker && !options.dryRun ? startWorkers(runtime) : undefined;
  try {
    const request = { account: options.account, input, idempotencyKey: options.idempotencyKey };
    if (options.dryRun) {
      const prepared = await prepareAction(runtime, request);
      printPlan(prepared.plan);
      if (prepared.earlier) {
        console.log(
          `note: this command already ran as action ${prepared.earlier.id} (${prepared.earlier.status}); it would not be sent again`,
        );
      }
      return;
    }
    const submitted = await submitAction(runtime, request);
    const { action } = submitted;
    if (submitted.existing) {
      console.log(
        `this command was recorded before as action ${action.id} (${action.createdAt.toISOString()}): its outcome follows; nothing new is sent. To run it again, pass a new --idempotency-key.`,
      );
    } else {
      console.log(`action ${action.id} recorded: ${submitted.plan.length} request(s) to send`);
      if (!workers && (await managementWorkerCount(runtime)) === 0) {
        console.log('warning: no worker is running; start one with `ledgerline worker` (or pass --with-worker)');
      }
    }
    const finished = await waitForAction(runtime, action.id);
    await printOutcome(runtime, finished);
    const failedOrders = await runtime.prisma.orderCancelOutcome.count({
      where: { actionId: finished.id, result: { in: ['failed', 'unknown', 'pending'] } },
    });
    if (finished.status !== 'succeeded') {
      throw new ActionFailedError(
        finished.id,
        finished.status,
        (finished.error ?? finished.resolution ?? '').split('\n')[0]!,
      );
    }
    if (failedOrders > 0)
      throw new ActionFailedError(finished.id, 'with orders not cancelled', `${failedOrders} order(s)`);
  } finally {
    await workers?.close();
    await runtime.close();
  }
}

export function printPlan(plan: readonly PlannedRequest[]): void {
  console.log(`dry run: ${plan.length} request(s) would be sent, in this order (passphrases shown as [redacted]):`);
  for (const request of plan) {
    console.log(`${request.method} ${request.path} ${JSON.stringify(redactBody(request.body))}`);
  }
}

const SHOWN_ORDERS = 20;

async function printOutcome(runtime: AppRuntime, action: ManagementAction): Promise<void> {
  const requests = await runtime.prisma.managementRequest.findMany({
    where: { actionId: action.id },
    orderBy: { seq: 'asc' },
  });
  console.log(`action ${action.id}: ${action.status}`);
  for (const r of requests) {
    const code = r.errorCode ? ` ${r.errorCode}` : '';
    console.log(`  request ${r.seq} ${r.step} ${r.purpose} ${r.method} ${r.path}: ${r.status}${code}`);
  }
  if (action.result !== null) console.log(`result: ${JSON.stringify(action.result)}`);
  if (action.resolution) console.log(`resolution: ${action.resolution}`);
  if (action.error) console.log(`error: ${action.error}`);
  const notCancelled = await runtime.prisma.orderCancelOutcome.findMany({
    where: { actionId: action.id, result: { not: 'cancelled' } },
    orderBy: { seq: 'asc' },
  });
  for (const o of notCancelled.slice(0, SHOWN_ORDERS)) {
    const id = o.orderId ? `orderId ${o.orderId}` : `clientOid ${o.clientOid}`;
    console.log(`  order ${o.symbol ?? ''} ${id}: ${o.result}${o.errorCode ? ` ${o.errorCode} ${o.errorMsg}` : ''}`);
  }
  if (notCancelled.length > SHOWN_ORDERS) console.log(`  ... and ${notCancelled.length - SHOWN_ORDERS} more`);
  const keys = await runtime.prisma.subAccountApiKey.findMany({
    where: { createdByActionId: action.id, secretEnc: { not: null } },
  });
  const account = await runtime.prisma.account.findUnique({ where: { id: action.accountId } });
  for (const key of keys) {
    console.log(
      `secret key of ${key.apiKey} stored encrypted; show it once with: ledgerline apikeys show-secret ${key.apiKey} --account ${account?.name ?? '<account>'}`,
    );
  }
}
