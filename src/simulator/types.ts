import type { AccountStateView, NewOrderSpec } from './admin/operations.ts';
import type { AnswerShapes } from './answer-shapes.ts';
import type { SimClock } from './clock.ts';
import type { NewAccountSpec, SimContext } from './context.ts';
import type { EndpointCounters } from './counters.ts';
import type { FuturesBalance, FuturesRecord } from './data/futures-store.ts';
import type { PositionRecord, TimestampSpelling } from './data/position-store.ts';
import type { ScaleOption } from './data/scale.ts';
import type { SpotRecord } from './data/spot-store.ts';
import type { TransferRecord } from './data/transfer-store.ts';
import type { FaultConfig } from './faults.ts';
import type { SimLedgerItem, SimLedgerStream } from './ledgers/index.ts';
import type { RateLimitOptions } from './rate-limit/rate-limits.ts';
import type { RequestLogEntry } from './request-log.ts';
import type { OpenOrder } from './state/orders.ts';

export interface SimulatorOptions {
  /** Seed of every generated record, id and credential (default 42). */
  seed?: number;
  /** Amount of generated history (default 'demo'). */
  scale?: ScaleOption;
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default enabled with the spec's budgets (factor 1). */
  rateLimits?: RateLimitOptions;
  /** 'lower' (default) sends ctime/utime, 'camel' cTime/uTime. */
  timestampSpelling?: TimestampSpelling;
  /** 'documented' (default), or 'recorded': the real exchange's recorded answer shapes (src/simulator/answer-shapes.ts). */
  answerShapes?: AnswerShapes;
  /** Initial simulated clock, Unix ms; the clock then stays frozen until set or advanced. Default: real time. */
  now?: number;
  /**
   * The instant the generated history is laid out from (Unix ms). Default: the
   * clock's start. The same seed and anchor always give the same records, so
   * a run anchored at the start of the UTC day (`--anchor today`) serves the
   * same history all day: what the demo needs to be re-runnable.
   */
  anchor?: number;
  /**
   * Addresses the demo key is bound to besides loopback (a container's neighbours). Binding does
   * not change the seeded credentials.
   */
  demoIps?: string[];
  /** Serve the /__sim admin API (default true). */
  admin?: boolean;
  /** How many of the last API requests GET /__sim/requests keeps (default 10,000). */
  requestLogSize?: number;
}

export interface DemoCredentials {
  uid: string;
  apiKey: string;
  secretKey: string;
  passphrase: string;
}

export type TruthStream = 'positions' | 'spot' | 'transfers' | 'futures-ledger' | SimLedgerStream;
export type TruthRecord<S extends TruthStream> = S extends 'positions'
  ? PositionRecord
  : S extends 'spot'
    ? SpotRecord
    : S extends 'futures-ledger'
      ? FuturesRecord
      : S extends SimLedgerStream
        ? SimLedgerItem<S>
        : TransferRecord;

export interface RunningSimulator {
  url: string;
  port: number;
  demo: DemoCredentials;
  close(): Promise<void>;
  clock: SimClock;
  /** Every record of a stream exactly as the API would return it now, newest first. */
  truth<S extends TruthStream>(stream: S, uid?: string): TruthRecord<S>[];
  /** Each futures wallet's balance now: the sum of its futures-ledger records the API shows now. */
  futuresBalances(uid?: string): FuturesBalance[];
  faults: { set(config: FaultConfig): void; clear(): void; get(): FaultConfig };
  counters: { get(): Record<string, EndpointCounters>; reset(): void };
  requestLog: { list(limit?: number): RequestLogEntry[]; clear(): void };
  rateLimits: { configure(options: RateLimitOptions): void; reset(): void };
  /** Creates a main account with the chosen capabilities and one key; returns its credentials. */
  createAccount(spec?: NewAccountSpec): DemoCredentials;
  /** Sub-accounts, their keys (no secrets) and open orders of a main account (default: the demo account). */
  state(uid?: string): AccountStateView;
  placeOrders(orders: NewOrderSpec[]): OpenOrder[];
  setTimestampSpelling(spelling: TimestampSpelling): void;
  /** Switches the answer shapes from the next request on. */
  setAnswerShapes(shapes: AnswerShapes): void;
  /** The whole simulated exchange, for tests that need more than the above. */
  context: SimContext;
}
