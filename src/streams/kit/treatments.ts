/**
 * What a record does to the lots, pools and income, for every method: each history declares one
 * treatment per documented type beside its columns (the stream's folder), and everything that
 * shows or walks a record reads that one declaration through the registry: the gains walk
 * (src/accounting/treatments), the wallet ledgers' reports and tax-tool files (the word each shows
 * is the kind), and docs/reports.md's "Treatments" table (treatment-docs.ts writes it).
 *
 * Kinds (what each does under each method, with its rule, is src/accounting/treatments/treatment-docs.ts):
 * - `trade-leg`      one side of a paired trade: a disposal of what was given, an acquisition of what was received.
 * - `trade-fee`      an incidental cost of a named trade (a fee in a third coin with the trade's order id):
 *                    that coin is disposed of at market value and the value is an allowable cost of the trade.
 *                    Not attached to a trade it is an `other-fee`.
 * - `other-fee`      a fee paying for no trade: a disposal at market value, no further allowable cost.
 * - `income`         income at market value on receipt (UK miscellaneous income; DE §22 Nr. 3 EStG);
 *                    the lot it creates costs that value. Going out: a disposal at market value.
 * - `rebate`         a part of a fee given back: the coins have no cost (nothing was given for them), which
 *                    over the coins' life is the fee reduced by the rebate. Going out: at market value.
 * - `own-move`       no change of owner (locks, earn, the user's own accounts, spot <-> futures): lots stay.
 * - `loan`           borrowing or repaying: acquisition / disposal at market value, flagged for review.
 * - `borrowing`      a margin loan taken or repaid inside the account: the borrowed coins are acquired at
 *                    market value (the borrower may deal with them as its own: beneficial ownership passes,
 *                    HMRC CRYPTO61620; a Sachdarlehen passes Eigentum, BGB §607), the repaid coins are
 *                    disposed of at market value (docs/reports.md, "Margin and P2P").
 * - `deposit`        coins from outside: cost unknown and no acquisition date until `cost-basis import`
 *                    supplies them; never invented.
 * - `withdrawal`     coins sent out, presumed still the owner's: their lots leave, nothing is realized; more
 *                    than held is flagged.
 * - `unknown-proceeds` a sale for fiat the record does not state (a P2P sell): a disposal whose proceeds
 *                    are left empty and flagged `review:unknown-proceeds`, never the market value.
 * - `market`         anything else changing ownership: acquisition or disposal at market value (adjustments,
 *                    refunds, expenses, futures results paid or received in the margin coin; a futures
 *                    result's fee is part of that result, so its coins are disposed of at market value too).
 */
export const TREATMENT_KINDS = [
  'trade-leg',
  'trade-fee',
  'other-fee',
  'income',
  'rebate',
  'own-move',
  'loan',
  'borrowing',
  'deposit',
  'withdrawal',
  'unknown-proceeds',
  'market',
] as const;
export type TreatmentKind = (typeof TREATMENT_KINDS)[number];

export interface Treatment {
  readonly kind: TreatmentKind;
  /** What the record is, in a few words (shown in the docs' table). */
  readonly note?: string;
  /**
   * A person must look at the record (a wallet ledger's `confiscated`, a P2P `buy`): the reports and
   * tax-tool files flag it `review:<type>` and count it in the manifest's `review`.
   */
  readonly review?: true;
}

/** A treatment, as the declarations write it. */
export function treatment(kind: TreatmentKind, note?: string): Treatment {
  return note === undefined ? { kind } : { kind, note };
}

/** A treatment a person must look at (`review`). */
export function reviewed(kind: TreatmentKind, note: string): Treatment {
  return { kind, note, review: true };
}

/**
 * A history's treatments, declared with it (StreamDefinition.treatments): the gains walk reads
 * every history that has them, each by its own table; a history the walk must read and that
 * declares none fails test/streams/history-treatments.unit.test.ts, naming what is missing.
 */
export interface HistoryTreatments {
  /**
   * The wallet its records move: the one word the files and the walk name it by (an entry's
   * `wallet`, the ids' `<wallet>:` prefix in every CSV, the gains rows' `wallet` cell).
   */
  readonly wallet: string;
  /** The column of the record's type (a `listed` field): every value it lists has a treatment here. */
  readonly typeColumn: string;
  /** Other id kinds (src/booking/text-safe-ids.ts) naming records of this wallet: futures' `position`. */
  readonly alsoIds?: readonly string[];
  /** One treatment per documented type. */
  readonly byType: Readonly<Record<string, Treatment>>;
}
