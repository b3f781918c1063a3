/**
 * The exchange's endpoints other than the history streams': method, path and
 * rate limit (docs/exchange-api.md §4). Each history stream declares its own
 * endpoint in its folder (`src/streams/<name>/endpoint.ts`) with the same
 * shape; `src/streams/endpoints.ts` joins both into the eleven, from which the
 * doc's table (§4.1) is generated (a test fails when the two disagree).
 */
export interface EndpointSpec {
  method: 'GET' | 'POST';
  path: string;
  /** Requests per sliding second. */
  perSecond: number;
  /** Whose budget a call spends: the account's main UID, or the caller's IP (public market data). */
  keyedBy: 'uid' | 'ip';
  /** Public endpoints go without authentication headers. */
  signed: boolean;
}

/** An endpoint with its name: the name its rate budget is kept under and its errors and metrics show. */
export interface NamedEndpoint extends EndpointSpec {
  readonly name: string;
}

export const ENDPOINTS = {
  createVirtualSubaccountApiKey: {
    method: 'POST',
    path: '/api/v2/user/create-virtual-subaccount-apikey',
    perSecond: 5,
    keyedBy: 'uid',
    signed: true,
  },
  modifyVirtualSubaccountApiKey: {
    method: 'POST',
    path: '/api/v2/user/modify-virtual-subaccount-apikey',
    perSecond: 5,
    keyedBy: 'uid',
    signed: true,
  },
  batchCreateSubaccountAndApiKey: {
    method: 'POST',
    path: '/api/v2/user/batch-create-subaccount-and-apikey',
    perSecond: 1,
    keyedBy: 'uid',
    signed: true,
  },
  createSub: { method: 'POST', path: '/api/v3/user/create-sub', perSecond: 10, keyedBy: 'uid', signed: true },
  cancelSymbolOrder: {
    method: 'POST',
    path: '/api/v3/trade/cancel-symbol-order',
    perSecond: 5,
    keyedBy: 'uid',
    signed: true,
  },
  // The spec states 10/s and 5/s; the stricter applies (docs/exchange-api.md §4.3).
  batchCancelOrder: {
    method: 'POST',
    path: '/api/v2/spot/trade/batch-cancel-order',
    perSecond: 5,
    keyedBy: 'uid',
    signed: true,
  },
  fundNetFlow: { method: 'GET', path: '/api/v2/spot/market/fund-net-flow', perSecond: 1, keyedBy: 'ip', signed: false },
  openInterestLimit: {
    method: 'GET',
    path: '/api/v3/account/open-interest-limit',
    perSecond: 5,
    keyedBy: 'uid',
    signed: true,
  },
} as const satisfies Record<string, EndpointSpec>;

export type EndpointName = keyof typeof ENDPOINTS;

export const ENDPOINT_NAMES = Object.keys(ENDPOINTS) as EndpointName[];

/** A core endpoint with its name, as the client's typed methods call it. */
export function coreEndpoint(name: EndpointName): NamedEndpoint {
  return { name, ...ENDPOINTS[name] };
}

/** On top of the per-endpoint budgets: 6000 requests per IP per minute (docs/exchange-api.md §4.4). */
export const PER_IP_PER_MINUTE = 6000;
