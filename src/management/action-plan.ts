import { ValidationError } from '../errors/index.ts';
import { type EndpointName, ENDPOINTS } from '../exchange/index.ts';
import { RequestValidationError } from '../exchange/index.ts';
import {
  batchCreateSubaccountAndApiKeyRequest,
  createSubRequest,
  createVirtualSubaccountApiKeyRequest,
  modifyVirtualSubaccountApiKeyRequest,
} from '../exchange/requests/sub-account-requests.ts';
import { batchCancelOrderRequest, cancelSymbolOrderRequest } from '../exchange/requests/trade-requests.ts';
import { validateRequest } from '../exchange/requests/validate-request.ts';
import { type ActionInput, type BatchCreateItem, REDACTED } from './action-input.ts';
import { planBatchCancel } from './batch-cancel-plan.ts';

/** At most this many sub-accounts per batch-create request (spec). */
export const MAX_ITEMS_PER_BATCH_CREATE = 5;

export interface PlannedRequest {
  /** Names the part of the action; the audit's request rows carry it. */
  step: string;
  endpoint: EndpointName;
  method: 'GET' | 'POST';
  path: string;
  /** The parameters exactly as the client will send them (already validated). */
  body: unknown;
  /** Batch cancel: positions of the request's orders in the operator's list. */
  orderIndices?: number[];
  /** Batch create: positions of the request's items in the operator's list. */
  itemIndices?: number[];
}

/**
 * Turns an action into the exact requests it will send, checking every rule
 * of the spec through the client's own request schemas. Throws a
 * ValidationError (naming the field and the rule) before anything happens.
 */
export function planAction(input: ActionInput): PlannedRequest[] {
  switch (input.command) {
    case 'subaccount_create':
      return [planned('main', 'createSub', validateRequest('createSub', createSubRequest, input.params))];
    case 'apikey_create':
      return [
        planned(
          'main',
          'createVirtualSubaccountApiKey',
          validateRequest('createVirtualSubaccountApiKey', createVirtualSubaccountApiKeyRequest, input.params),
        ),
      ];
    case 'apikey_modify':
      return [
        planned(
          'main',
          'modifyVirtualSubaccountApiKey',
          validateRequest('modifyVirtualSubaccountApiKey', modifyVirtualSubaccountApiKeyRequest, input.params),
        ),
      ];
    case 'orders_cancel_all':
      return [
        planned(
          'main',
          'cancelSymbolOrder',
          validateRequest('cancelSymbolOrder', cancelSymbolOrderRequest, input.params),
        ),
      ];
    case 'subaccount_batch_create':
      return planBatchCreate(input.params.items);
    case 'orders_batch_cancel':
      return planBatchCancel(input.params.orders).map((chunk, index) => {
        // A rule broken inside a request is reported against the operator's own list.
        const body = inOperatorTerms(
          () => validateRequest('batchCancelOrder', batchCancelOrderRequest, chunk.body),
          /^orderList\[(\d+)\]/,
          (k) => `orders[${chunk.indices[k]}]`,
          chunk.indices[0]!,
        );
        return { ...planned(`chunk-${index}`, 'batchCancelOrder', body), orderIndices: chunk.indices };
      });
  }
}

function planBatchCreate(items: readonly BatchCreateItem[]): PlannedRequest[] {
  if (items.length === 0) throw new ValidationError('items', 'must name at least one sub-account to create');
  // The exchange compares names ignoring case; a repeat in a later request would fail it (40060).
  const seen = new Map<string, number>();
  items.forEach((item, index) => {
    const name = typeof item.subAccountName === 'string' ? item.subAccountName.toLowerCase() : '';
    const earlier = seen.get(name);
    if (earlier !== undefined) {
      throw new ValidationError(`items[${index}].subAccountName`, `repeats items[${earlier}] (names ignore case)`);
    }
    seen.set(name, index);
  });
  const requests: PlannedRequest[] = [];
  for (let start = 0; start < items.length; start += MAX_ITEMS_PER_BATCH_CREATE) {
    const indices = items.slice(start, start + MAX_ITEMS_PER_BATCH_CREATE).map((_item, k) => start + k);
    const body = inOperatorTerms(
      () =>
        validateRequest(
          'batchCreateSubaccountAndApiKey',
          batchCreateSubaccountAndApiKeyRequest,
          indices.map((index) => items[index]),
        ),
      /^\[(\d+)\]/,
      (k) => `items[${indices[k]}]`,
      start,
    );
    requests.push({
      ...planned(`chunk-${requests.length}`, 'batchCreateSubaccountAndApiKey', body),
      itemIndices: indices,
    });
  }
  return requests;
}

/**
 * Runs a request's validation and, when it fails, names the field by its
 * place in the operator's list (`items[7].label`) rather than in the request.
 */
function inOperatorTerms<T>(validate: () => T, inRequest: RegExp, rename: (k: number) => string, first: number): T {
  try {
    return validate();
  } catch (error) {
    if (!(error instanceof RequestValidationError) || error.field === undefined) throw error;
    const match = inRequest.exec(error.field);
    const field = match ? `${rename(Number(match[1]))}${error.field.slice(match[0].length)}` : error.field;
    const renamed = match ? field : error.field === 'symbol' ? `orders[${first}].symbol` : field;
    throw new RequestValidationError(error.endpoint, renamed, error.rule ?? 'is invalid', error.value);
  }
}

function planned(step: string, endpoint: EndpointName, body: unknown): PlannedRequest {
  const spec = ENDPOINTS[endpoint];
  return { step, endpoint, method: spec.method, path: spec.path, body };
}

/** A request body as it may be stored or shown: passphrases redacted, secret keys replaced. */
export function redactBody(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(redactBody);
  if (body === null || typeof body !== 'object') return body;
  return Object.fromEntries(
    Object.entries(body as Record<string, unknown>).map(([key, value]) => {
      if (key === 'passphrase') return [key, REDACTED];
      if (key === 'secretKey') return [key, '[sealed]'];
      return [key, redactBody(value)];
    }),
  );
}
