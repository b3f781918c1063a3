import type { AnswerShapes } from './answer-shapes.ts';
import { SimClock } from './clock.ts';
import { Counters } from './counters.ts';
import { type AccountData, BROKER_SUB_ACCOUNTS, emptyAccountData, generateAccountData } from './data/account-data.ts';
import type { TimestampSpelling } from './data/position-store.ts';
import type { ScaleSpec } from './data/scale.ts';
import { Faults } from './faults.ts';
import { type RateLimitOptions, RateLimits } from './rate-limit/rate-limits.ts';
import { RequestLog } from './request-log.ts';
import { AccountRegistry } from './state/accounts.ts';
import { OrderBook } from './state/orders.ts';
import { type ApiKeyRecord, type Capabilities, type MainAccount, type Permission, PERMISSIONS } from './state/types.ts';

export interface NewAccountSpec extends Partial<Capabilities> {
  permList?: Permission[];
  ipList?: string[];
  label?: string;
  passphrase?: string;
  /** Give the account its own generated history (same scale, a seed of its own); empty otherwise. */
  withData?: boolean;
  /** Seed open orders in every category. */
  withOrders?: boolean;
}

export interface ContextOptions {
  seed: number;
  scale: ScaleSpec;
  anchor: number;
  /** Addresses the demo key is bound to besides loopback. */
  demoIps: string[];
  clock: SimClock;
  rateLimits: RateLimitOptions;
  timestampSpelling: TimestampSpelling;
  answerShapes: AnswerShapes;
  /** How many of the last API requests the request log keeps (default 10,000). */
  requestLogSize?: number;
}

export const LOCAL_IPS = ['127.0.0.1', '::1', '::ffff:127.0.0.1'];

/** Everything the simulated exchange holds; routes and the admin API work on this. */
export class SimContext {
  readonly seed: number;
  readonly scale: ScaleSpec;
  /** The clock value the data was generated around. */
  readonly anchor: number;
  readonly clock: SimClock;
  readonly accounts: AccountRegistry;
  readonly orders: OrderBook;
  readonly faults = new Faults();
  readonly counters = new Counters();
  readonly requestLog: RequestLog;
  readonly rateLimits: RateLimits;
  timestampSpelling: TimestampSpelling;
  /** Read at each request: the admin API switches it between two requests. */
  answerShapes: AnswerShapes;
  readonly demo: { account: MainAccount; key: ApiKeyRecord };
  readonly #data = new Map<string, AccountData>();
  readonly #empty = emptyAccountData();
  #generated = 0;

  constructor(options: ContextOptions) {
    this.seed = options.seed;
    this.scale = options.scale;
    this.anchor = options.anchor;
    this.clock = options.clock;
    this.requestLog = new RequestLog(options.requestLogSize);
    this.accounts = new AccountRegistry(options.seed);
    this.orders = new OrderBook(options.seed);
    this.rateLimits = new RateLimits(options.rateLimits);
    this.timestampSpelling = options.timestampSpelling;
    this.answerShapes = options.answerShapes;
    const demoAccount = this.createAccount({
      broker: true,
      uta: true,
      unifiedManagement: true,
      label: 'demo',
      ipList: [...LOCAL_IPS, ...options.demoIps],
      withData: true,
      withOrders: true,
    });
    this.demo = { account: demoAccount.account, key: demoAccount.key };
    // Two virtual sub-accounts with a key each, so modify and listing work from the start.
    for (let k = 0; k < 2; k++) {
      const sub = this.accounts.createSub(demoAccount.account, this.accounts.freshName(), 'seeded', this.anchor);
      this.accounts.addKey(
        sub.uid,
        demoAccount.account.uid,
        { permList: ['read', 'spot_trade'], ipList: [], label: `seed${k}` },
        this.anchor,
      );
    }
  }

  createAccount(spec: NewAccountSpec): { account: MainAccount; key: ApiKeyRecord } {
    const account = this.accounts.createMain({
      broker: spec.broker ?? false,
      uta: spec.uta ?? false,
      unifiedManagement: spec.unifiedManagement ?? false,
    });
    const key = this.accounts.addKey(
      account.uid,
      account.uid,
      {
        permList: spec.permList ?? [...PERMISSIONS],
        ipList: spec.ipList ?? LOCAL_IPS,
        label: spec.label ?? 'main',
        ...(spec.passphrase === undefined ? {} : { passphrase: spec.passphrase }),
      },
      this.clock.now(),
    );
    if (spec.withData) {
      const brokerUids = Array.from({ length: BROKER_SUB_ACCOUNTS }, () => this.accounts.reserveUid());
      // The demo account keeps the plain seed; every later account gets one derived from it.
      const seed = this.#generated === 0 ? this.seed : this.seed * 7919 + this.#generated;
      this.#generated++;
      this.#data.set(account.uid, generateAccountData(seed, this.scale, this.anchor, brokerUids));
    }
    if (spec.withOrders) this.orders.seedAccount(account.uid);
    return { account, key };
  }

  /** The history of a main account; sub-accounts and accounts made without data have none. */
  dataOf(uid: string): AccountData {
    return this.#data.get(uid) ?? this.#empty;
  }
}
