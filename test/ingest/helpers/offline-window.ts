import { ExchangeClient } from '../../../src/exchange/exchange-client.ts';
import { MemoryRateBudget } from '../../../src/exchange/rate-budget/memory-rate-budget.ts';
import type { SyncWindowRow } from '../../../src/ingest/coverage/window-store.ts';

const DAY = 86_400_000;

/** A running 30-day spot window `w1` of account `a1`, resuming from `cursor` (runWindow's unit tests). */
export function spotWindow(cursor: string | null = null): SyncWindowRow {
  return {
    id: 'w1',
    accountId: 'a1',
    stream: 'spot',
    scope: '',
    start: Date.UTC(2026, 0, 1),
    end: Date.UTC(2026, 0, 1) + 30 * DAY,
    status: 'running',
    cursor,
    pages: 0,
    rows: 0,
    attempts: 1,
    lastError: null,
  };
}

/** An exchange client that is never asked anything: a fake pager stands in for the exchange. */
export const offlineClient = new ExchangeClient({
  baseUrl: 'http://127.0.0.1:1',
  apiKey: 'k',
  secretKey: 's',
  passphrase: 'p',
  uid: '1001',
  budget: new MemoryRateBudget(),
});
