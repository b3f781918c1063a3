import { randomUUID } from 'node:crypto';

import type { SecretBox } from '../crypto/secret-box.ts';
import type { PrismaClient } from '../db/prisma.ts';
import type { BatchCreatedSubAccount, CreatedSubAccount, SubAccountApiKey } from '../exchange/index.ts';
import type { SubAccountSource } from '../generated/prisma/enums.ts';
import { ApiKeyNotFoundError, SecretUnavailableError } from './errors.ts';
import type { Tx } from './request-recorder.ts';

// Bound to the key's row: a ciphertext copied to another key's row does not open.
export const subKeySecretContext = (id: string) => `subkey:${id}:secret`;

interface SubFields {
  subUid: string | null;
  name?: string;
  email?: string;
  note?: string;
  status?: string;
  source: SubAccountSource;
  exchangeCreatedAt?: Date;
  keysWithoutId?: number;
}

/**
 * The local mirror of sub-accounts and their API keys, updated from every
 * answer in the transaction that records the answer. Secret keys are sealed
 * at once; nothing here ever holds one in plaintext beyond that call.
 */
export class Mirror {
  constructor(private readonly box: SecretBox) {}

  async recordCreatedSub(tx: Tx, accountId: string, actionId: string, name: string, sub: CreatedSubAccount) {
    await this.#upsertSub(tx, accountId, actionId, {
      subUid: sub.subUid,
      name,
      email: sub.username,
      note: sub.note,
      status: sub.status,
      source: 'create_sub',
      exchangeCreatedAt: new Date(Number(sub.createdTime)),
    });
  }

  async recordBatchCreated(tx: Tx, accountId: string, actionId: string, items: readonly BatchCreatedSubAccount[]) {
    for (const item of items) {
      await this.#upsertSub(tx, accountId, actionId, {
        subUid: item.subAccountUid,
        name: item.subAccountName,
        status: 'normal',
        source: 'batch_create',
      });
      await this.recordKey(tx, accountId, actionId, item, true);
    }
  }

  /**
   * A key as the exchange returned it (create, batch create or modify). Its
   * secret is sealed the first time the exchange hands it over; a later copy
   * (a modify answer) never brings back a secret that was already shown.
   */
  async recordKey(
    tx: Tx,
    accountId: string,
    actionId: string | null,
    key: Pick<SubAccountApiKey, 'subAccountUid' | 'subAccountApiKey' | 'secretKey' | 'label' | 'permList' | 'ipList'>,
    created: boolean,
  ) {
    const sub = await tx.subAccount.findUnique({
      where: { accountId_subUid: { accountId, subUid: key.subAccountUid } },
    });
    if (!sub) {
      await tx.subAccount.create({ data: { accountId, subUid: key.subAccountUid, source: 'observed' } });
    }
    const fields = { label: key.label, permList: [...key.permList], ipList: [...key.ipList] };
    const existing = await tx.subAccountApiKey.findUnique({
      where: { accountId_apiKey: { accountId, apiKey: key.subAccountApiKey } },
    });
    if (existing) {
      const firstSecret = existing.secretEnc === null && existing.secretRevealedAt === null;
      await tx.subAccountApiKey.update({
        where: { id: existing.id },
        data: {
          ...fields,
          subAccountUid: key.subAccountUid,
          ...(firstSecret ? { secretEnc: this.box.seal(key.secretKey, subKeySecretContext(existing.id)) } : {}),
        },
      });
      return;
    }
    const id = randomUUID();
    await tx.subAccountApiKey.create({
      data: {
        id,
        accountId,
        subAccountUid: key.subAccountUid,
        apiKey: key.subAccountApiKey,
        ...fields,
        secretEnc: this.box.seal(key.secretKey, subKeySecretContext(id)),
        createdByActionId: created ? actionId : null,
      },
    });
  }

  async #upsertSub(tx: Tx, accountId: string, actionId: string, fields: SubFields) {
    const nameKey = fields.name?.toLowerCase() ?? null;
    const bySubUid = fields.subUid
      ? await tx.subAccount.findUnique({ where: { accountId_subUid: { accountId, subUid: fields.subUid } } })
      : null;
    const existing =
      bySubUid ??
      (nameKey ? await tx.subAccount.findUnique({ where: { accountId_nameKey: { accountId, nameKey } } }) : null);
    const data = {
      subUid: fields.subUid ?? existing?.subUid ?? null,
      name: fields.name ?? existing?.name ?? null,
      nameKey: nameKey ?? existing?.nameKey ?? null,
      email: fields.email ?? existing?.email ?? null,
      note: fields.note ?? existing?.note ?? null,
      status: fields.status ?? existing?.status ?? null,
      source: fields.source,
      keysWithoutId: fields.keysWithoutId ?? existing?.keysWithoutId ?? 0,
      exchangeCreatedAt: fields.exchangeCreatedAt ?? existing?.exchangeCreatedAt ?? null,
    };
    if (existing) await tx.subAccount.update({ where: { id: existing.id }, data });
    else await tx.subAccount.create({ data: { ...data, accountId, createdByActionId: actionId } });
  }
}

/** Sub-accounts of the account the mirror knows of. */
export function countSubAccounts(prisma: PrismaClient | Tx, accountId: string): Promise<number> {
  return prisma.subAccount.count({ where: { accountId } });
}

/** API keys of one sub-account the mirror knows of, those never identified included. */
export async function countKeys(prisma: PrismaClient | Tx, accountId: string, subUid: string): Promise<number> {
  const [keys, sub] = await Promise.all([
    prisma.subAccountApiKey.count({ where: { accountId, subAccountUid: subUid } }),
    prisma.subAccount.findUnique({ where: { accountId_subUid: { accountId, subUid } } }),
  ]);
  return keys + (sub?.keysWithoutId ?? 0);
}

/**
 * The secret of a created key, exactly once: the ciphertext is taken out of
 * the row in the same statement that marks it revealed, so two callers at
 * once cannot both see it.
 */
export async function revealSecret(
  prisma: PrismaClient,
  box: SecretBox,
  accountId: string,
  apiKey: string,
): Promise<string> {
  const row = await prisma.subAccountApiKey.findUnique({ where: { accountId_apiKey: { accountId, apiKey } } });
  if (!row) throw new ApiKeyNotFoundError(apiKey);
  if (row.secretEnc === null) throw new SecretUnavailableError(apiKey, row.secretRevealedAt);
  const secret = box.open(row.secretEnc, subKeySecretContext(row.id));
  const taken = await prisma.subAccountApiKey.updateMany({
    where: { id: row.id, secretEnc: row.secretEnc, secretRevealedAt: null },
    data: { secretEnc: null, secretRevealedAt: new Date() },
  });
  if (taken.count !== 1) {
    const now = await prisma.subAccountApiKey.findUniqueOrThrow({ where: { id: row.id } });
    throw new SecretUnavailableError(apiKey, now.secretRevealedAt);
  }
  return secret;
}
