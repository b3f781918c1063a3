import { setTimeout as sleep } from 'node:timers/promises';

import type { z } from 'zod';

import type { Logger } from '../logging/logger.ts';
import type { ResolvedClientOptions } from './client-options.ts';
import type { NamedEndpoint } from './endpoints.ts';
import { ExchangeError, ExchangeRateLimitError } from './errors/exchange-error.ts';
import { failedRequestListener } from './failed-requests.ts';
import { BudgetWaitError, waitingInPlaceUpTo } from './rate-budget/budget-wait.ts';
import type { RateBudgetPort, RateRule, Slot } from './rate-budget/rate-budget-port.ts';
import { validateRequest } from './requests/validate-request.ts';
import { parseAnswer } from './responses/parse-answer.ts';
import type { ShapeDrift } from './responses/shape-drift.ts';
import { backoffDelay, decideRetry } from './retry-policy.ts';
import { authHeaders, buildQueryString, type QueryValue } from './signer.ts';
import type { Transport } from './transport.ts';

/** How long a 429 stops a budget: one full window, since the exchange has just counted too many. */
const PAUSE_AFTER_429_MS = 1_000;

/**
 * How long a retry waits in place for its budget slot, even for a caller that otherwise leaves on
 * a budget wait (an ingest job): as long as the longest default backoff. A caller that left would
 * come back to a new call at its first attempt, so a failing exchange behind a spent budget (spot
 * records: 1/s, every retry waits) would be retried for ever, its failures never counted.
 */
export const RETRY_WAIT_IN_PLACE_MS = 5_000;

/**
 * The thin signing transport under the typed methods: validate, wait for a
 * budget slot, sign, send, parse, and retry what may be retried.
 */
export class SignedCaller {
  #serverOffsetMs: number | undefined;

  constructor(
    private readonly options: ResolvedClientOptions,
    private readonly transport: Transport,
    private readonly budget: RateBudgetPort,
    private readonly log: Logger,
  ) {}

  async call<Req extends z.ZodType, Res extends z.ZodType>(
    spec: NamedEndpoint,
    requestSchema: Req,
    dataSchema: Res,
    params: unknown,
  ): Promise<z.output<Res>> {
    const endpoint = spec.name;
    const request = validateRequest(endpoint, requestSchema, params) as unknown;
    const queryString = spec.method === 'GET' ? buildQueryString(request as Record<string, QueryValue>) : '';
    // Serialized once: the signature covers these exact bytes, on every attempt.
    const body = spec.method === 'POST' ? JSON.stringify(request) : '';
    const pathAndQuery = queryString === '' ? spec.path : `${spec.path}?${queryString}`;
    const rules = this.rulesOf(spec);

    let failure: ExchangeError | undefined;
    for (let attempt = 1; ; attempt += 1) {
      const slot = failure === undefined ? await this.budget.acquire(rules) : await this.slotForRetry(rules, failure);
      const started = Date.now();
      try {
        let answer;
        let sentAt;
        try {
          sentAt = this.options.clock();
          const headers = spec.signed
            ? authHeaders(
                this.options.credentials,
                {
                  timestamp: String(sentAt),
                  method: spec.method,
                  requestPath: spec.path,
                  queryString,
                  body,
                },
                this.options.locale,
              )
            : { locale: this.options.locale };
          answer = await this.transport.send({ endpoint, method: spec.method, pathAndQuery, headers, body });
        } finally {
          // Given back whatever failed, signing included: a slot never completed blocks its budget
          // for the whole in-flight lease (60 s), as if the request were still out.
          await this.budget.complete(slot);
        }
        const { data, requestTime, drift } = parseAnswer(endpoint, answer.status, answer.body, dataSchema);
        if (requestTime !== undefined) this.#serverOffsetMs = requestTime - sentAt;
        if (drift.length > 0) await this.reportDrift(endpoint, drift);
        this.log.debug({ endpoint, attempt, status: answer.status, ms: Date.now() - started }, 'exchange call');
        return data;
      } catch (error) {
        if (!(error instanceof ExchangeError)) throw error;
        const verdict = await failedRequestListener()?.(error);
        if (verdict) {
          this.log.warn({ endpoint, attempt, code: verdict.code, status: error.httpStatus }, 'exchange call failed');
          throw verdict;
        }
        if (error instanceof ExchangeRateLimitError) await this.budget.pause(rules[0]!.key, PAUSE_AFTER_429_MS);
        const decision = decideRetry(spec.method, error, attempt, this.options.retry);
        if (!decision.retry) {
          this.log.warn(
            { endpoint, attempt, code: decision.error.code, status: error.httpStatus },
            'exchange call failed',
          );
          throw decision.error;
        }
        const delay = backoffDelay(attempt, this.options.retry);
        this.log.info(
          { endpoint, attempt, code: error.code, status: error.httpStatus, delay },
          'exchange call retried',
        );
        await sleep(delay);
        failure = error;
      }
    }
  }

  /** Counts the answer's drift; a failure to count is logged, never the call's failure. */
  private async reportDrift(endpoint: string, drift: ShapeDrift[]): Promise<void> {
    this.log.debug({ endpoint, drift }, 'exchange answer shape drifted');
    try {
      await this.options.onShapeDrift?.(endpoint, drift);
    } catch (error) {
      this.log.warn({ endpoint, err: error }, 'exchange answer drift not counted');
    }
  }

  /**
   * The slot of a retry: waited for in place up to RETRY_WAIT_IN_PLACE_MS. A longer wait ends the
   * call with the failure it was retrying, for the caller's own retries (the queue's backoff) to
   * take up: the retry is never traded for a budget wait that would forget it.
   */
  private async slotForRetry(rules: RateRule[], failure: ExchangeError): Promise<Slot> {
    try {
      return await waitingInPlaceUpTo(RETRY_WAIT_IN_PLACE_MS, () => this.budget.acquire(rules));
    } catch (error) {
      if (!(error instanceof BudgetWaitError)) throw error;
      this.log.warn(
        { endpoint: failure.endpoint, code: failure.code, status: failure.httpStatus, waitMs: error.waitMs },
        'exchange call failed: no budget slot for its retry soon enough',
      );
      throw failure;
    }
  }

  /**
   * How far the exchange's clock is ahead of the local one (ms, negative when behind): the last
   * successful answer's `requestTime` less the local clock when that request was sent (a few ms
   * of latency short). Undefined until an answer carried a `requestTime`.
   */
  get serverOffsetMs(): number | undefined {
    return this.#serverOffsetMs;
  }

  /**
   * The endpoint's own budget first (a 429 pauses it), then the per-IP minute budget. The budget
   * is kept under the endpoint's name, core or declared by a stream, at the rate it declares.
   */
  rulesOf(spec: NamedEndpoint): RateRule[] {
    const owner = spec.keyedBy === 'uid' ? `uid:${this.options.uid}` : `ip:${this.options.ipKey}`;
    return [
      { key: `${spec.name}:${owner}`, limit: this.options.perSecond[spec.name] ?? spec.perSecond, windowMs: 1_000 },
      { key: `all:ip:${this.options.ipKey}`, limit: this.options.perIpPerMinute, windowMs: 60_000 },
    ];
  }
}
