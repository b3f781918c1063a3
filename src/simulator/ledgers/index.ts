import type { LedgerRow, LedgerStore } from '../data/ledger-store.ts';
import { marginLedger } from './margin.ts';
import { p2pLedger } from './p2p.ts';
import { type AnySimLedger, walletLedgerEndpoint } from './wallet-ledger.ts';

/**
 * The simulator's wallet ledgers, in the order the routes, the account's data and the admin truth
 * list them. A new wallet ledger is a file beside these and one entry here (and its share of
 * spot's transfers in data/wallet-sides.ts).
 */
export const SIM_LEDGERS = [marginLedger, p2pLedger] as const;

export type SimLedger = (typeof SIM_LEDGERS)[number];
export type SimLedgerStream = SimLedger['stream'];
type RowOf<L> = L extends { generate(...args: never[]): (infer R)[] } ? R : never;
type ItemOf<L> = L extends { item(row: never): infer I } ? I : never;
/** The API item of the ledger named `S` in the admin truth. */
export type SimLedgerItem<S extends SimLedgerStream = SimLedgerStream> = ItemOf<Extract<SimLedger, { stream: S }>>;

/** Each wallet ledger's store in an account's data, under its key (`data.margin`, `data.p2p`). */
export type LedgerStores = { [L in SimLedger as L['key']]: LedgerStore<RowOf<L>> };

/** One store per wallet ledger, built by `make`. */
export function ledgerStores(make: (ledger: AnySimLedger) => LedgerStore<LedgerRow>): LedgerStores {
  return Object.fromEntries(SIM_LEDGERS.map((ledger) => [ledger.key, make(ledger)])) as unknown as LedgerStores;
}

/** A wallet ledger's store in the account's data. */
export function storeOf(stores: LedgerStores, ledger: AnySimLedger): LedgerStore<LedgerRow> {
  return (stores as unknown as Record<string, LedgerStore<LedgerRow>>)[ledger.key]!;
}

/** Each wallet ledger's tax endpoint. */
export const SIM_LEDGER_ENDPOINTS = SIM_LEDGERS.map((ledger: AnySimLedger) =>
  walletLedgerEndpoint(ledger, (ctx) => storeOf(ctx.sim.dataOf(ctx.caller.key.uid), ledger)),
);
