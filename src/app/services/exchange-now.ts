import { exchangeNow as askExchangeClock } from '../../streams/spot/clock-probe.ts';
import type { AppRuntime } from '../app-runtime.ts';

/**
 * "Now" for one plan: the exchange's clock (the `requestTime` of its answers), asked once through
 * the account's client. Never the local clock: one that runs ahead of the exchange's would plan
 * windows in the exchange's future (read empty, marked done, never read again) and put the
 * positions horizon later than the exchange's.
 */
export async function exchangeNow(runtime: AppRuntime, accountId: string): Promise<number> {
  const client = await runtime.clients.forAccount(accountId);
  return askExchangeClock(client);
}
