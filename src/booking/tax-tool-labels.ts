import type { SpotTaxType } from '../exchange/spot-tax-types.ts';
import type { TreatmentKind } from '../streams/kit/treatments.ts';
import type { AccountingCategory } from './categories.ts';
import { bookingArrays, bookingOf } from './spot-bookings.ts';
import type { SqlParams } from './sql-params.ts';

/**
 * What a ledger entry (ledger-entries.ts, column `movement`) does, which a tax tool labels:
 *   trade          a paired trade (sent and received)
 *   in / out       one record bringing coins in / taking them out, labelled by its booking
 *   fee            a fee alone: a record moving only its fee, or the fee row of a record bringing coins in
 *   none           a record moving nothing
 *   futures-gain / futures-loss   a futures result (futures-entries.ts), received / sent
 *   futures-in / futures-out      the futures wallet's side of a move from / to spot
 *   wallet-in / wallet-out        a wallet ledger's record (margin, P2P: wallet-entries.ts) bringing coins in /
 *                                 taking them out, labelled by its treatment (the entry's `category`)
 */
export type Movement =
  | 'trade'
  | 'in'
  | 'out'
  | 'fee'
  | 'none'
  | 'futures-gain'
  | 'futures-loss'
  | 'futures-in'
  | 'futures-out'
  | 'wallet-in'
  | 'wallet-out';

/** A label for coins in and one for coins out. */
export interface InOut<L extends string> {
  readonly in: L;
  readonly out: L;
}

/**
 * A tax tool's words for the ledger's entries: its dialect. A record is labelled by its spotTaxType
 * when `byType` names it, else by its category (a type the booking table does not know: `unmapped`).
 */
export interface TaxToolLabels<L extends string> {
  readonly trade: L;
  readonly fee: L;
  readonly none: L;
  readonly futuresGain: L;
  readonly futuresLoss: L;
  /** The futures wallet's side of a move between spot and futures (spot's side: `Transfer in`/`out`). */
  readonly futuresTransfer: InOut<L>;
  readonly byCategory: Readonly<Record<AccountingCategory, InOut<L>>>;
  readonly byType?: Readonly<Partial<Record<SpotTaxType, InOut<L>>>>;
  /**
   * A wallet ledger's record (margin, P2P) by its treatment's kind (the ledger's declaration); a
   * kind not named here, or a type the ledger does not list, takes the `unmapped` category's labels.
   * test/export/wallet-labels.unit.test.ts checks that every declared treatment is named.
   */
  readonly byTreatment: Readonly<Partial<Record<TreatmentKind, InOut<L>>>>;
}

/** The labels of a record of this spotTaxType. */
export function labelsOf<L extends string>(labels: TaxToolLabels<L>, spotTaxType: string): InOut<L> {
  const own =
    labels.byType && Object.hasOwn(labels.byType, spotTaxType) ? labels.byType[spotTaxType as SpotTaxType] : undefined;
  return own ?? labels.byCategory[bookingOf(spotTaxType).category];
}

/**
 * The label of each row of `entries` as SQL. The labels per spotTaxType are bound as arrays in the
 * booking table's order and picked by the entry's `booking_index`, so nothing is looked up per row
 * in JavaScript; a type not in the table (index null) takes the `unmapped` category's labels.
 */
export function labelSql<L extends string>(p: SqlParams, labels: TaxToolLabels<L>): string {
  const { types } = bookingArrays();
  const side = (which: 'in' | 'out') =>
    `coalesce((${p.add(
      types.map((type) => labelsOf(labels, type)[which]),
      'text[]',
    )})[booking_index], ${p.add(labels.byCategory.unmapped[which], 'text')})`;
  const treatments = Object.entries(labels.byTreatment);
  const names = p.add(
    treatments.map(([treatment]) => treatment),
    'text[]',
  );
  const wallet = (which: 'in' | 'out') =>
    `coalesce((${p.add(
      treatments.map(([, label]) => label[which]),
      'text[]',
    )})[array_position(${names}, category)], ${p.add(labels.byCategory.unmapped[which], 'text')})`;
  return `CASE movement WHEN 'in' THEN ${side('in')} WHEN 'out' THEN ${side('out')}
      WHEN 'wallet-in' THEN ${wallet('in')} WHEN 'wallet-out' THEN ${wallet('out')}
      WHEN 'trade' THEN ${p.add(labels.trade, 'text')} WHEN 'fee' THEN ${p.add(labels.fee, 'text')}
      WHEN 'futures-gain' THEN ${p.add(labels.futuresGain, 'text')}
      WHEN 'futures-loss' THEN ${p.add(labels.futuresLoss, 'text')}
      WHEN 'futures-in' THEN ${p.add(labels.futuresTransfer.in, 'text')}
      WHEN 'futures-out' THEN ${p.add(labels.futuresTransfer.out, 'text')} ELSE ${p.add(labels.none, 'text')} END`;
}
