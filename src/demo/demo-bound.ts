import { exchangeRequests } from '../metrics/instruments.ts';
import { ALL_ENDPOINTS } from '../streams/endpoints.ts';

/**
 * The demo's bound: the shortest time the exchange's budgets allow for the requests the demo
 * sent, its busiest endpoint's requests over that endpoint's rate (every ledger has a budget of
 * its own per UID, and the demo has one account; the per-IP cap is far away at its ~200 requests).
 * The requests are the process's own counts (ledgerline_exchange_requests_total), every answer
 * included, taken as differences so that an earlier run in the same process does not count.
 */
export interface DemoBound {
  seconds: number;
  endpoint: string;
  requests: number;
  perSecond: number;
  /** Requests sent, per endpoint name. */
  byEndpoint: Record<string, number>;
}

/** The process's requests per endpoint so far. */
export async function requestsSent(): Promise<Map<string, number>> {
  const { values } = await exchangeRequests.get();
  const sent = new Map<string, number>();
  for (const v of values) {
    const endpoint = String(v.labels.endpoint);
    sent.set(endpoint, (sent.get(endpoint) ?? 0) + v.value);
  }
  return sent;
}

/** The bound of the requests sent since `before` (requestsSent's earlier answer), at the budgets times `factor`. */
export async function demoBound(before: Map<string, number>, factor: number): Promise<DemoBound> {
  const byEndpoint: Record<string, number> = {};
  let bound: DemoBound = { seconds: 0, endpoint: '-', requests: 0, perSecond: 0, byEndpoint };
  for (const [endpoint, total] of await requestsSent()) {
    const requests = total - (before.get(endpoint) ?? 0);
    if (requests === 0) continue;
    byEndpoint[endpoint] = requests;
    const rate = ALL_ENDPOINTS.find((e) => e.name === endpoint)?.perSecond;
    if (rate === undefined) continue;
    const perSecond = rate * factor;
    if (requests / perSecond > bound.seconds)
      bound = { seconds: requests / perSecond, endpoint, requests, perSecond, byEndpoint };
  }
  return bound;
}
