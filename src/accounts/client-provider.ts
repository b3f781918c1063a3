import type { Redis } from 'ioredis';

import { ExchangeClient, type ExchangeClientOptions } from '../exchange/index.ts';
import type { AccountService } from './account-service.ts';

export type ClientOverrides = Partial<
  Omit<ExchangeClientOptions, 'baseUrl' | 'apiKey' | 'secretKey' | 'passphrase' | 'uid' | 'redis'>
>;

/**
 * One exchange client per account in this process, built on first use from
 * the account's decrypted credentials. Credentials stay in memory here: jobs
 * carry only the account id.
 */
export class ClientProvider {
  readonly #clients = new Map<string, Promise<ExchangeClient>>();

  constructor(
    private readonly accounts: AccountService,
    private readonly redis: Redis,
    private readonly overrides: ClientOverrides = {},
  ) {}

  forAccount(accountId: string): Promise<ExchangeClient> {
    let client = this.#clients.get(accountId);
    if (!client) {
      client = this.accounts.credentials(accountId).then(
        (credentials) =>
          new ExchangeClient({
            ...this.overrides,
            baseUrl: credentials.baseUrl,
            apiKey: credentials.apiKey,
            secretKey: credentials.secretKey,
            passphrase: credentials.passphrase,
            uid: credentials.uid,
            redis: this.redis,
          }),
      );
      // A failed build (say, a bad master key) is not cached: the next job tries again.
      client.catch(() => this.#clients.delete(accountId));
      this.#clients.set(accountId, client);
    }
    return client;
  }

  async close(): Promise<void> {
    const clients = await Promise.allSettled(this.#clients.values());
    this.#clients.clear();
    await Promise.all(clients.map((c) => (c.status === 'fulfilled' ? c.value.close() : undefined)));
  }
}
