import { randomUUID } from 'node:crypto';

import { maskSecret, SecretBox } from '../crypto/secret-box.ts';
import { Prisma, type PrismaClient } from '../db/prisma.ts';
import { streamDefinition, STREAMS } from '../streams/registry.ts';
import { AccountExistsError, AccountInUseError, AccountNotFoundError, type PermanentRows } from './account-errors.ts';
import { type AccountInput, parseAccountInput, type ValidAccountInput } from './account-input.ts';

/** An account's decrypted credentials: only for building an exchange client, never logged or queued. */
export interface AccountCredentials {
  id: string;
  name: string;
  uid: string;
  baseUrl: string;
  apiKey: string;
  secretKey: string;
  passphrase: string;
  isBrokerParent: boolean;
  isUnifiedAccount: boolean;
}

export interface AccountSummary {
  id: string;
  name: string;
  uid: string;
  baseUrl: string;
  apiKey: string;
  isBrokerParent: boolean;
  isUnifiedAccount: boolean;
  /** Set by `accounts disable`: the nightly run skips the account; its history stays in reports. */
  disabledAt: Date | null;
  createdAt: Date;
}

/** What `accounts update` may change; an absent field keeps its stored value. */
export type AccountUpdate = Partial<Omit<AccountInput, 'name'>>;

/**
 * Checks credentials against the exchange before they are stored (one signed read); throws
 * when the exchange refuses them. Given the decrypted values, so it is never logged.
 */
export type VerifyCredentials = (credentials: Omit<AccountCredentials, 'id'>) => Promise<void>;

// Binding each sealed value to its row and purpose: a ciphertext copied
// into another account's row does not open.
const secretContext = (id: string) => `account:${id}:secret`;
const passphraseContext = (id: string) => `account:${id}:passphrase`;

export class AccountService {
  readonly #prisma: PrismaClient;
  readonly #box: SecretBox;

  constructor(prisma: PrismaClient, masterKey: Buffer) {
    this.#prisma = prisma;
    this.#box = new SecretBox(masterKey);
  }

  async add(input: AccountInput, options: { verify?: VerifyCredentials } = {}): Promise<AccountSummary> {
    const valid = parseAccountInput(input);
    if (await this.#prisma.account.findUnique({ where: { name: valid.name } }))
      throw new AccountExistsError(valid.name);
    await options.verify?.(valid);
    const id = randomUUID();
    const account = await this.#prisma.account.create({
      data: {
        id,
        name: valid.name,
        uid: valid.uid,
        baseUrl: valid.baseUrl.replace(/\/$/, ''),
        apiKey: valid.apiKey,
        secretEnc: this.#box.seal(valid.secretKey, secretContext(id)),
        passphraseEnc: this.#box.seal(valid.passphrase, passphraseContext(id)),
        isBrokerParent: valid.isBrokerParent,
        isUnifiedAccount: valid.isUnifiedAccount,
      },
    });
    return summarize(account);
  }

  /**
   * Registers the account, or brings an existing one of that name up to date
   * (a moved base URL, rotated credentials). Its history stays attached.
   */
  async upsert(input: AccountInput): Promise<AccountSummary> {
    const valid = parseAccountInput(input);
    const existing = await this.#prisma.account.findUnique({ where: { name: valid.name } });
    if (!existing) return this.add(input);
    return this.#store(existing.id, valid);
  }

  /**
   * Changes an account's credentials, base URL or flags: the fields given replace the stored
   * ones, the merged whole is validated (and verified, when asked) before anything is written.
   * The account's id, and so its history, stays.
   */
  async update(
    name: string,
    changes: AccountUpdate,
    options: { verify?: VerifyCredentials } = {},
  ): Promise<AccountSummary> {
    const existing = await this.#prisma.account.findUnique({ where: { name } });
    if (!existing) throw new AccountNotFoundError(name);
    const current = await this.credentials(existing.id);
    const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    const valid = parseAccountInput({ ...current, ...defined, name });
    await options.verify?.(valid);
    return this.#store(existing.id, valid);
  }

  /** Writes a validated input over an existing account, its secrets sealed to that account's row. */
  async #store(id: string, valid: ValidAccountInput): Promise<AccountSummary> {
    const account = await this.#prisma.account.update({
      where: { id },
      data: {
        uid: valid.uid,
        baseUrl: valid.baseUrl.replace(/\/$/, ''),
        apiKey: valid.apiKey,
        secretEnc: this.#box.seal(valid.secretKey, secretContext(id)),
        passphraseEnc: this.#box.seal(valid.passphrase, passphraseContext(id)),
        isBrokerParent: valid.isBrokerParent,
        isUnifiedAccount: valid.isUnifiedAccount,
      },
    });
    return summarize(account);
  }

  /** Disables (the nightly run skips it) or enables an account; its stored history is untouched. */
  async setDisabled(name: string, disabled: boolean): Promise<AccountSummary> {
    const existing = await this.#prisma.account.findUnique({ where: { name } });
    if (!existing) throw new AccountNotFoundError(name);
    // Disabling twice keeps the first instant: it says since when the account was left out.
    const disabledAt = disabled ? (existing.disabledAt ?? new Date()) : null;
    return summarize(await this.#prisma.account.update({ where: { id: existing.id }, data: { disabledAt } }));
  }

  /**
   * When the account's row last changed: a client built from older credentials is stale
   * (ClientProvider rebuilds it, so a rotated secret is used by the next job of a running worker).
   */
  async version(id: string): Promise<number> {
    const account = await this.#prisma.account.findUnique({ where: { id }, select: { updatedAt: true } });
    if (!account) throw new AccountNotFoundError(id);
    return account.updatedAt.getTime();
  }

  /** Accounts with their API key masked. */
  async list(): Promise<AccountSummary[]> {
    const accounts = await this.#prisma.account.findMany({ orderBy: { name: 'asc' } });
    return accounts.map(summarize);
  }

  async get(name: string): Promise<AccountSummary> {
    const account = await this.#prisma.account.findUnique({ where: { name } });
    if (!account) throw new AccountNotFoundError(name);
    return summarize(account);
  }

  async getById(id: string): Promise<AccountSummary> {
    const account = await this.#prisma.account.findUnique({ where: { id } });
    if (!account) throw new AccountNotFoundError(id);
    return summarize(account);
  }

  async credentials(id: string): Promise<AccountCredentials> {
    const account = await this.#prisma.account.findUnique({ where: { id } });
    if (!account) throw new AccountNotFoundError(id);
    return {
      id: account.id,
      name: account.name,
      uid: account.uid ?? '',
      baseUrl: account.baseUrl,
      apiKey: account.apiKey,
      secretKey: this.#box.open(account.secretEnc, secretContext(account.id)),
      passphrase: this.#box.open(account.passphraseEnc, passphraseContext(account.id)),
      isBrokerParent: account.isBrokerParent,
      isUnifiedAccount: account.isUnifiedAccount,
    };
  }

  /**
   * Removes an account that has nothing permanent: no stored history, no
   * management audit trail, no sub-account mirror, no reconciliation report.
   * Foreign keys restrict the delete too, so a row written after the counts
   * still makes it fail rather than leave an orphan.
   */
  async remove(name: string): Promise<void> {
    const account = await this.#prisma.account.findUnique({ where: { name } });
    if (!account) throw new AccountNotFoundError(name);
    const kept = await this.#permanentRows(account.id);
    if (kept.history + kept.management + kept.reconciliation > 0) throw new AccountInUseError(name, kept);
    try {
      await this.#prisma.$transaction([
        this.#prisma.syncWindow.deleteMany({ where: { accountId: account.id } }),
        this.#prisma.account.delete({ where: { id: account.id } }),
      ]);
    } catch (error) {
      // A permanent row written since the counts: the foreign key refused the delete.
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2003') {
        throw new AccountInUseError(name, await this.#permanentRows(account.id));
      }
      throw error;
    }
  }

  /** Every history's rows of the account, one count per registered stream's table. */
  async #historyRows(accountId: string): Promise<number> {
    const counts = STREAMS.map(
      (s) => `(SELECT count(*) FROM ${streamDefinition(s).table.table} WHERE account_id = $1::uuid)`,
    );
    const [row] = await this.#prisma.$queryRawUnsafe<{ rows: number }[]>(
      `SELECT (${counts.join(' + ')})::int AS rows`,
      accountId,
    );
    return row?.rows ?? 0;
  }

  async #permanentRows(accountId: string): Promise<PermanentRows> {
    const where = { accountId };
    const [histories, limits, actions, subAccounts, apiKeys, reports] = await Promise.all([
      this.#historyRows(accountId),
      this.#prisma.openInterestLimitSnapshot.count({ where }),
      this.#prisma.managementAction.count({ where }),
      this.#prisma.subAccount.count({ where }),
      this.#prisma.subAccountApiKey.count({ where }),
      this.#prisma.reconciliationReport.count({ where }),
    ]);
    return {
      history: histories + limits,
      management: actions + subAccounts + apiKeys,
      reconciliation: reports,
    };
  }
}

function summarize(account: {
  id: string;
  name: string;
  uid: string | null;
  baseUrl: string;
  apiKey: string;
  isBrokerParent: boolean;
  isUnifiedAccount: boolean;
  disabledAt: Date | null;
  createdAt: Date;
}): AccountSummary {
  return {
    id: account.id,
    name: account.name,
    uid: account.uid ?? '',
    baseUrl: account.baseUrl,
    apiKey: maskSecret(account.apiKey),
    isBrokerParent: account.isBrokerParent,
    isUnifiedAccount: account.isUnifiedAccount,
    disabledAt: account.disabledAt,
    createdAt: account.createdAt,
  };
}
