import { isValidIp } from '../auth/ip.ts';
import type { NewAccountSpec, SimContext } from '../context.ts';
import type { FuturesBalance, FuturesRecord } from '../data/futures-store.ts';
import { ORDER_CATEGORIES, type OrderCategory, symbolsOf } from '../data/markets.ts';
import type { PositionRecord } from '../data/position-store.ts';
import type { SpotRecord } from '../data/spot-store.ts';
import type { TransferRecord } from '../data/transfer-store.ts';
import { SIM_LEDGERS, type SimLedgerItem, type SimLedgerStream, storeOf } from '../ledgers/index.ts';
import type { AnySimLedger } from '../ledgers/wallet-ledger.ts';
import type { OpenOrder } from '../state/orders.ts';
import { PERMISSIONS, type PublicKeyView, publicKeyView } from '../state/types.ts';
import type { DemoCredentials, TruthStream } from '../types.ts';

/** The admin operations, shared by the /__sim HTTP API and the in-process RunningSimulator. */

export class AdminInputError extends Error {}

type TruthRecord = PositionRecord | SpotRecord | TransferRecord | FuturesRecord | SimLedgerItem;

/** Each stream's records as the simulator would serve them to `uid` right now. */
const TRUTH_READERS: Record<TruthStream, (sim: SimContext, uid: string, now: number) => TruthRecord[]> = {
  spot(sim, uid, now) {
    const store = sim.dataOf(uid).spot;
    return store.visible(now).map((i) => store.record(i));
  },
  positions(sim, uid, now) {
    const store = sim.dataOf(uid).positions;
    return store.visible(now).map((i) => store.record(i, sim.timestampSpelling));
  },
  'futures-ledger'(sim, uid, now) {
    const store = sim.dataOf(uid).futures;
    return store.visible(now).map((i) => store.record(i));
  },
  // The wallet ledgers (ledgers/index.ts), in their order.
  ...(Object.fromEntries(
    SIM_LEDGERS.map((ledger: AnySimLedger) => [
      ledger.stream,
      (sim: SimContext, uid: string, now: number) =>
        storeOf(sim.dataOf(uid), ledger)
          .visible(now)
          .map((row) => ledger.item(row)),
    ]),
  ) as Record<SimLedgerStream, (sim: SimContext, uid: string, now: number) => TruthRecord[]>),
  transfers(sim, uid, now) {
    if (sim.accounts.main(uid)) {
      const store = sim.dataOf(uid).transfers;
      return store.visible(now).map((item) => store.record(item, now));
    }
    // A broker client's uid: that sub-account's records only.
    const owner = sim.accounts.main(sim.demo.account.uid);
    const data = owner ? sim.dataOf(owner.uid) : undefined;
    if (!data || !data.brokerSubUids.includes(uid)) return [];
    return data.transfers
      .visible(now)
      .map((item) => data.transfers.record(item, now))
      .filter((record) => record.uid === uid);
  },
};

export function truth(sim: SimContext, stream: TruthStream, uid?: string): TruthRecord[] {
  // The stream comes from an HTTP query too: anything but a listed name is refused.
  if (!Object.hasOwn(TRUTH_READERS, stream))
    throw new AdminInputError(`stream: must be one of ${Object.keys(TRUTH_READERS).join(', ')}`);
  return TRUTH_READERS[stream](sim, uid ?? sim.demo.account.uid, sim.clock.now());
}

/** Each futures wallet's balance as the futures-ledger records the API shows now add up. */
export function futuresBalances(sim: SimContext, uid?: string): FuturesBalance[] {
  return sim.dataOf(uid ?? sim.demo.account.uid).futures.balances(sim.clock.now());
}

export interface AccountStateView {
  uid: string;
  broker: boolean;
  uta: boolean;
  unifiedManagement: boolean;
  keys: PublicKeyView[];
  subAccounts: {
    uid: string;
    name: string;
    email: string;
    note: string;
    status: string;
    createdTime: number;
    apiKeys: PublicKeyView[];
  }[];
  brokerSubUids: string[];
  openOrders: OpenOrder[];
}

export function accountState(sim: SimContext, uid?: string): AccountStateView {
  const account = sim.accounts.main(uid ?? sim.demo.account.uid);
  if (!account) throw new AdminInputError(`uid: no main account ${String(uid)}`);
  return {
    uid: account.uid,
    broker: account.broker,
    uta: account.uta,
    unifiedManagement: account.unifiedManagement,
    keys: account.keys.map(publicKeyView),
    subAccounts: account.subs.map((sub) => ({
      uid: sub.uid,
      name: sub.name,
      email: sub.email,
      note: sub.note,
      status: sub.status,
      createdTime: sub.createdTime,
      apiKeys: sub.keys.map(publicKeyView),
    })),
    brokerSubUids: [...sim.dataOf(account.uid).brokerSubUids],
    openOrders: [account.uid, ...account.subs.map((sub) => sub.uid)].flatMap((owner) => sim.orders.openOf(owner)),
  };
}

export function createAccount(sim: SimContext, input: unknown): DemoCredentials {
  const spec = (input ?? {}) as Record<string, unknown>;
  if (typeof spec !== 'object' || Array.isArray(spec)) throw new AdminInputError('body: must be an object');
  for (const flag of ['broker', 'uta', 'unifiedManagement', 'withData', 'withOrders'] as const) {
    if (spec[flag] !== undefined && typeof spec[flag] !== 'boolean')
      throw new AdminInputError(`${flag}: must be true or false`);
  }
  const permList = spec.permList;
  if (
    permList !== undefined &&
    !(Array.isArray(permList) && permList.every((p) => (PERMISSIONS as readonly unknown[]).includes(p)))
  ) {
    throw new AdminInputError(`permList: must list values of ${PERMISSIONS.join(', ')}`);
  }
  const ipList = spec.ipList;
  if (ipList !== undefined && !(Array.isArray(ipList) && ipList.every(isValidIp))) {
    throw new AdminInputError('ipList: must list IPv4 or IPv6 addresses');
  }
  for (const text of ['label', 'passphrase'] as const) {
    if (spec[text] !== undefined && typeof spec[text] !== 'string')
      throw new AdminInputError(`${text}: must be a string`);
  }
  const { account, key } = sim.createAccount(spec as NewAccountSpec);
  return { uid: account.uid, apiKey: key.apiKey, secretKey: key.secretKey, passphrase: key.passphrase };
}

export interface NewOrderSpec {
  /** Owner account (default: the demo account). */
  uid?: string;
  category: OrderCategory;
  symbol: string;
  orderId?: string;
  clientOid?: string;
  status?: 'live' | 'partially_filled';
  /** The cancel endpoints report this order as not cancellable (24056). */
  stuck?: boolean;
}

export function placeOrders(sim: SimContext, input: unknown): OpenOrder[] {
  const list = Array.isArray(input) ? input : [input];
  const specs = list.map((raw, i) => validateOrder(sim, raw, i));
  return specs.map((spec) => sim.orders.place(spec));
}

function validateOrder(sim: SimContext, raw: unknown, i: number): NewOrderSpec & { uid: string } {
  if (raw === null || typeof raw !== 'object') throw new AdminInputError(`orders[${i}]: must be an object`);
  const spec = raw as Record<string, unknown>;
  const uid = spec.uid === undefined ? sim.demo.account.uid : String(spec.uid);
  if (!sim.accounts.main(uid) && !sim.accounts.sub(uid)) throw new AdminInputError(`orders[${i}].uid: unknown account`);
  const category = spec.category as OrderCategory;
  if (!ORDER_CATEGORIES.includes(category)) {
    throw new AdminInputError(`orders[${i}].category: must be one of ${ORDER_CATEGORIES.join(', ')}`);
  }
  if (typeof spec.symbol !== 'string' || !symbolsOf(category).includes(spec.symbol)) {
    throw new AdminInputError(`orders[${i}].symbol: must be one of ${symbolsOf(category).join(', ')}`);
  }
  for (const text of ['orderId', 'clientOid'] as const) {
    if (spec[text] !== undefined && (typeof spec[text] !== 'string' || spec[text] === '')) {
      throw new AdminInputError(`orders[${i}].${text}: must be a non-empty string`);
    }
  }
  if (spec.status !== undefined && spec.status !== 'live' && spec.status !== 'partially_filled') {
    throw new AdminInputError(`orders[${i}].status: must be live or partially_filled`);
  }
  return {
    uid,
    category,
    symbol: spec.symbol,
    ...(spec.orderId === undefined ? {} : { orderId: spec.orderId as string }),
    ...(spec.clientOid === undefined ? {} : { clientOid: spec.clientOid as string }),
    ...(spec.status === undefined ? {} : { status: spec.status as 'live' | 'partially_filled' }),
    stuck: spec.stuck === true,
  };
}
