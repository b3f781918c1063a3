import type { PrismaClient } from '../db/prisma.ts';
import { ValidationError } from '../errors/index.ts';
import type { ActionInput } from './action-input.ts';
import { LimitReachedError } from './errors.ts';
import { countKeys, countSubAccounts } from './mirror-store.ts';
import type { Tx } from './request-recorder.ts';

/** docs/exchange-api.md §6.4: 20 sub-accounts per main account, 10 API keys per virtual sub-account. */
export const MAX_SUB_ACCOUNTS = 20;
export const MAX_KEYS_PER_SUB_ACCOUNT = 10;

export async function checkSubAccountRoom(db: PrismaClient | Tx, accountId: string, adding: number): Promise<void> {
  const known = await countSubAccounts(db, accountId);
  if (known + adding > MAX_SUB_ACCOUNTS) throw new LimitReachedError('sub-accounts', known, MAX_SUB_ACCOUNTS, adding);
}

export async function checkKeyRoom(db: PrismaClient | Tx, accountId: string, subUid: string): Promise<void> {
  const known = await countKeys(db, accountId, subUid);
  if (known + 1 > MAX_KEYS_PER_SUB_ACCOUNT) {
    throw new LimitReachedError(`API keys of sub-account ${subUid}`, known, MAX_KEYS_PER_SUB_ACCOUNT, 1);
  }
}

/** Names the mirror already holds would be refused by the exchange (40060): said before sending. */
export async function checkNamesFree(
  db: PrismaClient | Tx,
  accountId: string,
  names: readonly string[],
): Promise<void> {
  const taken = await db.subAccount.findMany({
    where: { accountId, nameKey: { in: names.map((name) => name.toLowerCase()) } },
    select: { name: true },
  });
  if (taken.length > 0) {
    throw new ValidationError(
      'subAccountName',
      `already exists in the local mirror (see: ledgerline subaccounts list): ${taken.map((t) => t.name).join(', ')}`,
    );
  }
}

/** Every limit the local mirror can tell is reached, before anything is recorded or sent. */
export async function checkLocalLimits(db: PrismaClient | Tx, accountId: string, input: ActionInput): Promise<void> {
  switch (input.command) {
    case 'subaccount_create':
      await checkNamesFree(db, accountId, [input.params.username]);
      await checkSubAccountRoom(db, accountId, 1);
      return;
    case 'subaccount_batch_create':
      await checkNamesFree(
        db,
        accountId,
        input.params.items.map((item) => item.subAccountName),
      );
      await checkSubAccountRoom(db, accountId, input.params.items.length);
      return;
    case 'apikey_create':
      await checkKeyRoom(db, accountId, input.params.subAccountUid);
      return;
    default:
      return;
  }
}
