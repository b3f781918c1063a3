import { randomUUID } from 'node:crypto';

import type { SecretBox } from '../crypto/secret-box.ts';
import { Prisma, type PrismaClient } from '../db/prisma.ts';
import type { ManagementAction, ManagementStatus } from '../generated/prisma/client.ts';
import type { Command, SplitInput } from './action-input.ts';
import { IdempotencyConflictError } from './errors.ts';
import { idempotencyKey, releasedKey } from './idempotency.ts';

export const FINISHED: readonly ManagementStatus[] = ['succeeded', 'partial', 'failed', 'ambiguous'];

export function isFinished(status: ManagementStatus): boolean {
  return FINISHED.includes(status);
}

// Bound to the row: a ciphertext copied into another action's row does not open.
const secretsContext = (actionId: string) => `action:${actionId}:secrets`;

export interface RecordedAction {
  action: ManagementAction;
  /** True when the idempotency key named an action recorded earlier: nothing new was written. */
  existing: boolean;
}

/**
 * Writes the audit row of a new action (status pending) with its passphrases
 * sealed, or returns the action its idempotency key already names.
 */
export async function recordAction(
  prisma: PrismaClient,
  box: SecretBox,
  accountId: string,
  input: SplitInput,
  key: string,
  redactedParams: Record<string, unknown>,
): Promise<RecordedAction> {
  const earlier = await prisma.managementAction.findUnique({ where: { idempotencyKey: key } });
  if (earlier) return { action: sameCommand(earlier, accountId, input, key), existing: true };
  const id = randomUUID();
  try {
    const action = await prisma.managementAction.create({
      data: {
        id,
        accountId,
        command: input.command,
        parameters: redactedParams as Prisma.InputJsonObject,
        idempotencyKey: key,
        secretsEnc: input.secrets.length > 0 ? box.seal(JSON.stringify(input.secrets), secretsContext(id)) : null,
      },
    });
    return { action, existing: false };
  } catch (error) {
    // Two submissions of the same command at once: the other one won; this is the same action.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
      const winner = await prisma.managementAction.findUniqueOrThrow({ where: { idempotencyKey: key } });
      return { action: sameCommand(winner, accountId, input, key), existing: true };
    }
    throw error;
  }
}

function sameCommand(earlier: ManagementAction, accountId: string, input: SplitInput, key: string): ManagementAction {
  if (!key.startsWith('caller:')) return earlier;
  const before = idempotencyKey(earlier.accountId, earlier.command as Command, storedParams(earlier));
  const now = idempotencyKey(accountId, input.command, input.params);
  if (before !== now) throw new IdempotencyConflictError(key.slice('caller:'.length), earlier.command);
  return earlier;
}

/** The stored parameters without the [redacted] placeholders (the form splitSecrets gives). */
export function storedParams(action: ManagementAction): Record<string, unknown> {
  const params = action.parameters as Record<string, unknown>;
  if (action.command === 'subaccount_batch_create') {
    const items = (params.items as Record<string, unknown>[]).map(({ passphrase: _p, ...rest }) => rest);
    return { items };
  }
  if (action.command === 'apikey_create' || action.command === 'apikey_modify') {
    const { passphrase: _p, ...rest } = params;
    return rest;
  }
  return params;
}

export function openSecrets(box: SecretBox, action: ManagementAction): string[] {
  if (action.secretsEnc === null) return [];
  return JSON.parse(box.open(action.secretsEnc, secretsContext(action.id))) as string[];
}

/**
 * Takes the action for this run: pending, or running (a worker died in it and
 * BullMQ handed the job on). False when it has already ended.
 */
export async function claimAction(prisma: PrismaClient, id: string): Promise<ManagementAction | undefined> {
  const now = new Date();
  const claimed = await prisma.managementAction.updateMany({
    where: { id, status: { in: ['pending', 'running'] } },
    data: { status: 'running', runs: { increment: 1 } },
  });
  if (claimed.count === 0) return undefined;
  await prisma.managementAction.updateMany({ where: { id, startedAt: null }, data: { startedAt: now } });
  return prisma.managementAction.findUniqueOrThrow({ where: { id } });
}

export interface ActionEnd {
  status: ManagementStatus;
  result?: unknown;
  error?: string | null;
  resolution?: string | null;
}

/**
 * Completes the audit row after the last request; the sealed passphrases are
 * no longer needed. A repeat-safe command's derived key is released (kept
 * with the action id appended), so the same command can run again later.
 */
export async function finishAction(
  prisma: PrismaClient,
  action: Pick<ManagementAction, 'id' | 'idempotencyKey' | 'command'>,
  end: ActionEnd,
): Promise<ManagementAction> {
  const { id, idempotencyKey: key } = action;
  return prisma.managementAction.update({
    where: { id },
    data: {
      idempotencyKey: releasedKey(key, action.command as Command, id) ?? key,
      status: end.status,
      result: end.result === undefined ? Prisma.DbNull : (end.result as Prisma.InputJsonValue),
      error: end.error ?? null,
      resolution: end.resolution ?? null,
      secretsEnc: null,
      finishedAt: new Date(),
    },
  });
}
