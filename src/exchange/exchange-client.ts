import type { z } from 'zod';

import { logger as moduleLogger } from '../logging/logger.ts';
import { type ExchangeClientOptions, resolveClientOptions, type ResolvedClientOptions } from './client-options.ts';
import { coreEndpoint, type NamedEndpoint } from './endpoints.ts';
import { RateBudget } from './rate-budget/rate-budget.ts';
import {
  type FundNetFlowParams,
  fundNetFlowRequest,
  type OpenInterestLimitParams,
  openInterestLimitRequest,
} from './requests/market-requests.ts';
import {
  type BatchCreateSubaccountAndApiKeyParams,
  batchCreateSubaccountAndApiKeyRequest,
  type CreateSubParams,
  createSubRequest,
  type CreateVirtualSubaccountApiKeyParams,
  createVirtualSubaccountApiKeyRequest,
  type ModifyVirtualSubaccountApiKeyParams,
  modifyVirtualSubaccountApiKeyRequest,
} from './requests/sub-account-requests.ts';
import {
  type BatchCancelOrderParams,
  batchCancelOrderRequest,
  type CancelSymbolOrderParams,
  cancelSymbolOrderRequest,
} from './requests/trade-requests.ts';
import {
  batchCancelOrderData,
  type BatchCancelOrderResult,
  type BatchCreatedSubAccount,
  batchCreateSubaccountAndApiKeyData,
  cancelSymbolOrderData,
  type CancelSymbolOrderResult,
  type CreatedSubAccount,
  createSubData,
  type SubAccountApiKey,
  subAccountApiKeyData,
} from './responses/account-responses.ts';
import {
  fundNetFlowData,
  type NetFlowPoint,
  type OpenInterestLimit,
  openInterestLimitData,
} from './responses/market-responses.ts';
import { SignedCaller } from './signed-caller.ts';
import { Transport } from './transport.ts';

/**
 * One account's view of the exchange: one typed method per endpoint. Every
 * method validates its parameters before anything is sent (RequestValidationError),
 * waits for the shared rate budget, and returns normalized data or throws an
 * ExchangeError subclass. The ingestion jobs build one per account.
 */
export class ExchangeClient {
  readonly options: Omit<ResolvedClientOptions, 'credentials'>;
  private readonly transport: Transport;
  private readonly caller: SignedCaller;

  constructor(options: ExchangeClientOptions) {
    const resolved = resolveClientOptions(options);
    const { credentials: _credentials, ...visible } = resolved;
    this.options = visible;
    this.transport = new Transport(resolved.origin, resolved.timeouts, resolved.connections, resolved.maxAnswerBytes);
    const budget = options.budget ?? new RateBudget(options.redis!, resolved.budget);
    const log = (options.logger ?? moduleLogger('exchange-client')).child({ uid: resolved.uid });
    this.caller = new SignedCaller(resolved, this.transport, budget, log);
  }

  // --- The exchange's clock ---

  /**
   * The exchange's "now" as last seen: the local clock plus the offset the last answer's
   * `requestTime` showed (docs/exchange-api.md §3.1); the local clock alone before any answer.
   * Plans and horizons use this, never the local clock, which may be off the exchange's.
   */
  now(): number {
    return this.options.clock() + (this.caller.serverOffsetMs ?? 0);
  }

  /**
   * Whether an answer has shown the exchange's clock yet; until one has, `now()` is the local
   * clock alone. The spot stream's `exchangeNow` (src/streams/spot/clock-probe.ts) asks once.
   */
  get knowsExchangeClock(): boolean {
    return this.caller.serverOffsetMs !== undefined;
  }

  // --- Sub-account management (POST, state-changing) ---

  createVirtualSubaccountApiKey(params: CreateVirtualSubaccountApiKeyParams): Promise<SubAccountApiKey> {
    return this.caller.call(
      coreEndpoint('createVirtualSubaccountApiKey'),
      createVirtualSubaccountApiKeyRequest,
      subAccountApiKeyData,
      params,
    );
  }

  modifyVirtualSubaccountApiKey(params: ModifyVirtualSubaccountApiKeyParams): Promise<SubAccountApiKey> {
    return this.caller.call(
      coreEndpoint('modifyVirtualSubaccountApiKey'),
      modifyVirtualSubaccountApiKeyRequest,
      subAccountApiKeyData,
      params,
    );
  }

  batchCreateSubaccountAndApiKey(params: BatchCreateSubaccountAndApiKeyParams): Promise<BatchCreatedSubAccount[]> {
    return this.caller.call(
      coreEndpoint('batchCreateSubaccountAndApiKey'),
      batchCreateSubaccountAndApiKeyRequest,
      batchCreateSubaccountAndApiKeyData,
      params,
    );
  }

  createSub(params: CreateSubParams): Promise<CreatedSubAccount> {
    return this.caller.call(coreEndpoint('createSub'), createSubRequest, createSubData, params);
  }

  // --- Trading (POST, state-changing) ---

  cancelSymbolOrder(params: CancelSymbolOrderParams): Promise<CancelSymbolOrderResult> {
    return this.caller.call(coreEndpoint('cancelSymbolOrder'), cancelSymbolOrderRequest, cancelSymbolOrderData, params);
  }

  batchCancelOrder(params: BatchCancelOrderParams): Promise<BatchCancelOrderResult> {
    return this.caller.call(coreEndpoint('batchCancelOrder'), batchCancelOrderRequest, batchCancelOrderData, params);
  }

  // --- Any endpoint (the history streams declare their own request and answer: src/streams) ---

  /**
   * One request: `params` checked by `request` before anything is sent, the
   * answer's data parsed by `response`. The history streams call this with
   * their own schemas; the endpoint (path, method, rate budget) is theirs too.
   */
  call<Req extends z.ZodType, Res extends z.ZodType>(
    endpoint: NamedEndpoint,
    request: Req,
    response: Res,
    params: z.input<Req>,
  ): Promise<z.output<Res>> {
    return this.caller.call(endpoint, request, response, params);
  }

  // --- Market and account data (GET) ---

  fundNetFlow(params: FundNetFlowParams): Promise<NetFlowPoint[]> {
    return this.caller.call(coreEndpoint('fundNetFlow'), fundNetFlowRequest, fundNetFlowData, params);
  }

  openInterestLimit(params: OpenInterestLimitParams): Promise<OpenInterestLimit> {
    return this.caller.call(coreEndpoint('openInterestLimit'), openInterestLimitRequest, openInterestLimitData, params);
  }

  /** Closes the keep-alive connections. The Redis connection belongs to the caller. */
  async close(): Promise<void> {
    await this.transport.close();
  }
}
