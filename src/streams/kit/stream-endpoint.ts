import type { z } from 'zod';

import type { NamedEndpoint, WindowSpan } from '../../exchange/index.ts';

/**
 * The endpoint a history stream is read from, declared in the stream's own
 * folder (`endpoint.ts`): path, method and rate budget (what the client and
 * its rate budget need), the planner's facts (the widest window, the horizon)
 * and the page size ingestion asks for. The exchange layer is generic over it:
 * a new stream adds nothing to `src/exchange`.
 */
export interface StreamEndpoint extends NamedEndpoint, WindowSpan {
  readonly method: 'GET';
  /** The largest page the endpoint allows (its maximum `limit`): what ingestion asks for. */
  readonly pageLimit: number;
  /**
   * The request's rules (field by field, and the time range against the endpoint's span and
   * horizon), judged against `now`: the exchange's clock as the client last saw it.
   */
  request(now: () => number): z.ZodType;
}
