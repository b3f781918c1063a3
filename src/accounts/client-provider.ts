import type { Cluster, Redis } from 'ioredis';

import {
  ExchangeAuthError,
  ExchangeClient,
  type ExchangeClientOptions,
  ExchangeIpError,
  ExchangePermissionError,
} from '../exchange/index.ts';
import { logger } from '../logging/logger.ts';
import { spotRecord } from '../streams/spot/pager.ts';
import { CredentialsRefusedError } from './account-errors.ts';
import type { AccountCredentials, AccountService } from './account-service.ts';

export type ClientOverrides = Partial<
  Omit<ExchangeClientOptions, 'baseUrl' | 'apiKey' | 'secretKey' | 'passphrase' | 'uid' | 'redis'>
>;

interface CachedClient {
  /** The account row's version the client was built from (AccountService.version). */
  version: number;
  client: Promise<ExchangeClient>;
}

/**
 * One exchange client per account in this process, built on first use from
 * the account's decrypted credentials. Credentials stay in memory here: jobs
 * carry only the account id.
 */
export class ClientProvider {
  readonly #clients = new Map<string, CachedClient>();
  /** Clients replaced after a rotation: a job may still be using one, so they are closed only at close(). */
  readonly #retired: Promise<ExchangeClient>[] = [];

  constructor(
    private readonly accounts: AccountService,
    private readonly redis: Redis | Cluster,
    private readonly overrides: ClientOverrides = {},
  ) {}

  async forAccount(accountId: string): Promise<ExchangeClient> {
    // One indexed read per job: without it a running worker would keep signing with a rotated secret.
    const version = await this.accounts.version(accountId);
    const cached = this.#clients.get(accountId);
    if (cached?.version === version) return cached.client;
    if (cached) this.#retired.push(cached.client);
    const client = this.accounts.credentials(accountId).then((credentials) => this.#build(credentials));
    // A failed build (say, a bad master key) is not cached: the next job tries again.
    client.catch(() => {
      if (this.#clients.get(accountId)?.client === client) this.#clients.delete(accountId);
    });
    this.#clients.set(accountId, { version, client });
    return client;
  }

  /**
   * One signed read with these credentials (a single spot record): an exchange that refuses
   * them (key, secret, passphrase, permission or IP) raises CredentialsRefusedError; a network
   * or server failure keeps its own class (exit code 3: try again later).
   */
  async verify(credentials: Omit<AccountCredentials, 'id'>): Promise<void> {
    const client = this.#build(credentials);
    try {
      await spotRecord(client, { limit: 1 });
    } catch (error) {
      if (
        error instanceof ExchangeAuthError ||
        error instanceof ExchangePermissionError ||
        error instanceof ExchangeIpError
      ) {
        throw new CredentialsRefusedError(error);
      }
      throw error;
    } finally {
      await client.close();
    }
  }

  /**
   * One signed read (a single spot record) with the account's stored credentials, tried once
   * with no retry: whether the exchange answers and accepts them, known within one request's
   * timeout. Throws the exchange's error as its class (ExchangeNetworkError for a dead address,
   * ExchangeAuthError for refused credentials); `doctor` and `reconcile` ask it before work that
   * would otherwise retry a dead exchange for half a minute.
   */
  async probe(accountId: string): Promise<void> {
    const client = this.#build(await this.accounts.credentials(accountId), {
      retry: { maxAttempts: 1 },
      // The caller says what the failure means, in one line: the client's own warning would be a second.
      logger: logger('exchange-client').child({}, { level: 'error' }),
    });
    try {
      await spotRecord(client, { limit: 1 });
    } finally {
      await client.close();
    }
  }

  #build(credentials: Omit<AccountCredentials, 'id'>, extra: ClientOverrides = {}): ExchangeClient {
    return new ExchangeClient({
      ...this.overrides,
      ...extra,
      baseUrl: credentials.baseUrl,
      apiKey: credentials.apiKey,
      secretKey: credentials.secretKey,
      passphrase: credentials.passphrase,
      uid: credentials.uid,
      redis: this.redis,
    });
  }

  async close(): Promise<void> {
    const clients = await Promise.allSettled([...[...this.#clients.values()].map((c) => c.client), ...this.#retired]);
    this.#clients.clear();
    this.#retired.length = 0;
    await Promise.all(clients.map((c) => (c.status === 'fulfilled' ? c.value.close() : undefined)));
  }
}
