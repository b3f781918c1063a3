import type { Decimal } from 'decimal.js';

import { TAXED_WALLETS } from '../streams/registry.ts';

/**
 * The wallets whose ledgers are entries (ledger-entries.ts, wallet-entries.ts): each history the
 * registry declares treatments for (spot, futures, margin, p2p), by its wallet's word.
 */
export const ENTRY_WALLETS: readonly string[] = TAXED_WALLETS;
export type EntryWallet = string;

/**
 * One entry of the spot ledger as the tax-tool reports see it (ledger-entries.ts): a
 * paired trade (one fill or one order) or a single record, amounts positive, fees positive.
 */
export interface LedgerEntry {
  readonly atMs: number;
  readonly sentAmount: Decimal | null;
  readonly sentCoin: string | null;
  readonly receivedAmount: Decimal | null;
  readonly receivedCoin: string | null;
  readonly feeAmount: Decimal | null;
  readonly feeCoin: string | null;
  /** The spotTaxType's accounting category (spot-tax-types.ts), or `futures`. */
  readonly category: string;
  /** The record's spotTaxType (a trade: `Buy`, or `Buy / Sell`). */
  readonly spotTypes: string;
  /** `a+b` for a trade's legs; `<id>:fee` for the fee of a record bringing coins in. */
  readonly recordIds: string;
  /** null, `unpaired-leg`, `omitted:...`, `review:...` or `spotTaxType=...` (ledger-entries.ts). */
  readonly flag: string | null;
  /** The wallet the entry moves (absent: spot). */
  readonly wallet?: EntryWallet;
  /** A trade's fee paid in a third coin (BGB `Transaction fee deduct`), with the fee record's id. */
  readonly thirdFee?: { readonly amount: Decimal; readonly coin: string; readonly recordIds: string } | null;
  /** This is such a fee's own record: its trade's entry already carries it (`thirdFee`). */
  readonly attached?: boolean;
  /**
   * A futures entry's spot counterpart (`spot:<id>`: the other side of a spot <-> futures transfer);
   * null for a futures entry with none (a futures transfer the spot ledger does not show, e.g. the
   * balance brought forward before the history). Absent on spot entries and entries built by hand.
   */
  readonly pairId?: string | null;
}
