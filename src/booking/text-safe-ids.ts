import { WALLET_LEDGER_WALLETS } from '../streams/registry.ts';

/**
 * How the exchange's ids are written in every CSV report: `<kind>:<id>`, e.g. `spot:1764227851024000`.
 *
 * The exchange's ids are numbers of 13 to 19 digits. A spreadsheet opening a CSV reads a cell of
 * digits as a number and keeps 15 significant digits: `1764227851024001` becomes
 * `1764227851024000`, silently, and the file saved again holds the wrong id. A cell that starts
 * with letters is text to every spreadsheet, so each id is written with a prefix naming what it
 * is. The prefix is there always, whatever the id's length, so the same id reads the same in every
 * file (search a `spot-ledger` for the `spot:...` of a Koinly row), and ids of different kinds
 * never meet (a spot record and a futures position may share digits). The tax-tool files'
 * futures rows used `position:<id>` already; the other kinds follow it.
 * test/export/tax-tool-replay.test.ts scans every CSV report of the demo data for a bare number
 * of 16 or more digits.
 */
const OWN_KINDS = {
  /** A spot finance record (spot-record `id`). */
  spot: 'spot:',
  /** A spot order (`bizOrderId`). */
  order: 'order:',
  /** A futures finance record (future-record `id`). */
  futures: 'futures:',
  /** A closed futures position (history-position `positionId`). */
  position: 'position:',
  /** A broker sub-account deposit or withdrawal (`txId`). */
  transfer: 'transfer:',
} as const;

/**
 * Every kind: the ones above and each wallet ledger's records by its wallet (margin-record `id` as
 * `margin:<id>`, p2p-record `id` as `p2p:<id>`), from the registry: a wallet ledger registered
 * has its kind.
 */
export const ID_KINDS: typeof OWN_KINDS & Readonly<Record<string, string>> = Object.freeze({
  ...OWN_KINDS,
  ...Object.fromEntries(WALLET_LEDGER_WALLETS.map((wallet) => [wallet, `${wallet}:`])),
});

/** A kind of id: one of OWN_KINDS or a wallet ledger's wallet. */
export type IdKind = string;

/** The prefix of a kind's ids; a kind nothing declares is a programming error. */
export function idPrefix(kind: IdKind): string {
  const prefix = ID_KINDS[kind];
  if (prefix === undefined)
    throw new Error(`no id kind ${JSON.stringify(kind)} (text-safe-ids.ts, the registry's wallets)`);
  return prefix;
}

/** The id in its file form; an empty id stays empty (no order: '' rather than a bare prefix). */
export function textSafeId(kind: IdKind, id: string): string {
  return id === '' ? '' : `${idPrefix(kind)}${id}`;
}

/** The same as SQL over a text expression (a null or empty id gives ''). */
export function textSafeIdSql(kind: IdKind, expression: string): string {
  return `CASE WHEN coalesce(${expression}, '') = '' THEN '' ELSE '${idPrefix(kind)}' || ${expression} END`;
}
