import type { AccountSummary } from '../../accounts/account-service.ts';
import { ServiceUnreachableError } from '../../errors/index.ts';
import { ExchangeNetworkError, ExchangeServerError } from '../../exchange/index.ts';
import type { AppRuntime } from '../app-runtime.ts';

/**
 * Asks the account's exchange once (one signed read, no retry) before work that talks to it
 * for minutes: an exchange that does not answer (a dead address, a simulator that stopped, an
 * outage) is a ServiceUnreachableError naming the account's base URL within one request's
 * timeout (exit 3), instead of every check retrying it for half a minute and failing as if the
 * history were wrong. Any other refusal (credentials, permission) is thrown as its own class.
 */
export async function assertExchangeAnswers(runtime: AppRuntime, account: AccountSummary): Promise<void> {
  try {
    await runtime.clients.probe(account.id);
  } catch (error) {
    if (error instanceof ExchangeNetworkError || error instanceof ExchangeServerError) {
      throw new ServiceUnreachableError(
        'the exchange',
        `account ${account.name}'s base URL`,
        hostOf(account.baseUrl),
        error.msg || error.message,
        error,
      );
    }
    throw error;
  }
}

/** host:port of the account's base URL: never its path or query. */
function hostOf(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;
  } catch {
    return 'an unparsable URL';
  }
}
