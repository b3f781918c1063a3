import { requirePermission } from '../auth/access.ts';
import type { LedgerRow, LedgerStore } from '../data/ledger-store.ts';
import type { SpotColumns } from '../data/spot-generator.ts';
import { DAY } from '../data/time.ts';
import { errors } from '../envelope.ts';
import type { PrivateEndpoint } from '../routes/endpoint.ts';
import { limitParam, optionalId, optionalQuery, requiredTime } from '../routes/params.ts';

/**
 * One wallet ledger of the simulator (margin, P2P): its records, how they are generated from the
 * account's spot records, how one is served, and its tax endpoint. Everything that lists the
 * ledgers (the account's data, the routes, the admin truth, the RunningSimulator's types) reads
 * SIM_LEDGERS (index.ts), so a new wallet ledger is one file here and one line in that list.
 */
export interface SimWalletLedger<
  Key extends string,
  Stream extends string,
  Row extends LedgerRow,
  Item extends { id: string; coin: string },
> {
  /** Its store's name in the account's data (`sim.dataOf(uid).<key>`). */
  key: Key;
  /** Its name in the admin truth (`truth(stream)`), ledgerline's stream name. */
  stream: Stream;
  /**
   * The spot transfers whose other side is this ledger: for each slot it takes (a spot record's
   * floor(id / 1000) % 10, data/wallet-sides.ts), the side's name for the record's coin. Slots
   * no ledger takes go to futures.
   */
  transferSlots: Readonly<Record<number, (coin: string) => string>>;
  /**
   * The account's records, ascending by id; the same seed, spot records and anchor give the same
   * records. `sideOf` names the other side of spot record i if it is a transfer (wallet-sides.ts).
   */
  generate(seed: number, spot: SpotColumns, anchor: number, sideOf: (spotIndex: number) => string): Row[];
  /** A record as the API serves it. */
  item(row: Row): Item;
  /** Its tax endpoint: a bare array, newest first by (ts, id), paged with idLessThan = last id. */
  route: {
    name: string;
    path: string;
    /** Budget per sliding second (docs/exchange-api.md §4.1). */
    perSecond: number;
    /** The widest startTime..endTime span accepted, in days. */
    maxDays: number;
    /**
     * Reads the request's scope parameters (margin's marginType), checked before coin and the
     * times as the exchange does; the answer keeps the records it accepts.
     */
    scope?(query: URLSearchParams): (row: Row) => boolean;
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any row and item: the list holds ledgers of each kind
export type AnySimLedger = SimWalletLedger<string, string, any, any>;

/** GET /api/v2/tax/<x>-record for one wallet ledger (docs/exchange-api.md §5.8, §5.9). */
export function walletLedgerEndpoint<Row extends LedgerRow, Item extends { id: string; coin: string }>(
  ledger: SimWalletLedger<string, string, Row, Item>,
  storeOf: (ctx: Parameters<PrivateEndpoint['handle']>[0]) => LedgerStore<Row>,
): PrivateEndpoint {
  const { route } = ledger;
  return {
    name: route.name,
    method: 'GET',
    path: route.path,
    perSecond: route.perSecond,
    auth: 'private',
    access: [(caller) => requirePermission(caller, 'read')],
    handle(ctx) {
      const q = ctx.query;
      const inScope = route.scope?.(q);
      const coin = optionalQuery(q, 'coin')?.toUpperCase();
      const start = requiredTime(q, 'startTime');
      const end = requiredTime(q, 'endTime');
      const idLessThan = optionalId(q, 'idLessThan');
      const limit = limitParam(q, 500, 500);
      if (start > end) throw errors.startAfterEnd();
      if (end - start > route.maxDays * DAY) throw errors.rangeTooLong(route.maxDays);
      return storeOf(ctx)
        .query({
          matches: (row) =>
            (inScope === undefined || inScope(row)) && (coin === undefined || ledger.item(row).coin === coin),
          startTime: start,
          endTime: end,
          ...(idLessThan === undefined ? {} : { idLessThan }),
          limit,
          now: ctx.now,
        })
        .map((row) => ledger.item(row));
    },
  };
}
