import type { Caller } from '../auth/access.ts';
import type { SimContext } from '../context.ts';

/** What a handler sees of one request. */
export interface RequestContext {
  sim: SimContext;
  method: string;
  path: string;
  /** Exactly as received, without '?'. */
  rawQuery: string;
  query: URLSearchParams;
  /** Exactly as received; empty for GET. */
  rawBody: string;
  ip: string;
  /** The simulated clock for this request. */
  now: number;
}

export interface PrivateContext extends RequestContext {
  caller: Caller;
}

/** A complete success response already written as bytes (the hot path builds it directly). */
export class RawBody {
  constructor(
    readonly bytes: Buffer,
    /** Called once the bytes are no longer needed (sent, or the connection is gone). */
    readonly release: () => void = () => {},
  ) {}
}

interface EndpointBase {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  /** Budget per sliding second (docs/exchange-api.md §4.1). */
  perSecond: number;
}

export interface PrivateEndpoint extends EndpointBase {
  auth: 'private';
  /** Access rules, in order; each throws its documented error. */
  access: ((caller: PrivateContext['caller']) => void)[];
  handle(ctx: PrivateContext): unknown;
}

/** Public endpoints need no auth headers and are rate-limited per IP. */
export interface PublicEndpoint extends EndpointBase {
  auth: 'public';
  handle(ctx: RequestContext): unknown;
}

export type Endpoint = PrivateEndpoint | PublicEndpoint;
