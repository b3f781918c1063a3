import { type Treatment, treatment, TREATMENT_KINDS, type TreatmentKind } from '../../streams/kit/treatments.ts';
import { historyTreatments, TAXED_HISTORIES } from '../../streams/registry.ts';

export { type Treatment, TREATMENT_KINDS, type TreatmentKind };

/**
 * The treatment tables the gains walk applies, one per wallet, read from the histories' own
 * declarations (each stream's folder: spot/treatments.ts, futures-ledger/treatments.ts, a wallet
 * ledger's tax-types.ts) through the registry: docs/reports.md's "Treatments" is written from the
 * same tables (treatment-docs.ts). A wallet's word (`spot`, `futures`, `margin`, `p2p`) is its
 * history's `treatments.wallet`.
 */
export type Ledger = string;

/** Every wallet the walk reads, in the registry's order (spot, futures, margin, p2p). */
export const LEDGERS: readonly Ledger[] = TAXED_HISTORIES.map((s) => historyTreatments(s).wallet);

/** Every wallet's table. */
export const TREATMENTS: Readonly<Record<Ledger, Readonly<Record<string, Treatment>>>> = Object.freeze(
  Object.fromEntries(
    TAXED_HISTORIES.map((s) => [historyTreatments(s).wallet, Object.freeze(historyTreatments(s).byType)]),
  ),
);

/** One wallet's table; a wallet no history declares is a programming error. */
export function treatmentsOf(ledger: Ledger): Readonly<Record<string, Treatment>> {
  const table = TREATMENTS[ledger];
  if (table === undefined) throw new Error(`no history declares treatments for the ${ledger} wallet`);
  return table;
}

/** The types of `ledger` treated as `kind`, in its table's order (a P2P `buy`: deposit). */
export function typesTreatedAs(ledger: Ledger, kind: TreatmentKind): string[] {
  return Object.entries(treatmentsOf(ledger))
    .filter(([, t]) => t.kind === kind)
    .map(([type]) => type);
}

/**
 * A tax type no table knows: moved at market value (never dropped, never a cost invented), and the
 * entry is already flagged `spotTaxType=` / `futureTaxType=` by the ledger (ledger-entries.ts).
 */
export const UNMAPPED_TREATMENT: Treatment = treatment('market', 'a tax type the table does not know: flagged');

/** The table's treatment of a record of `ledger` with `taxType`; undefined for a type it does not list. */
export function listedTreatment(ledger: Ledger, taxType: string): Treatment | undefined {
  const table = TREATMENTS[ledger];
  return table !== undefined && Object.hasOwn(table, taxType) ? table[taxType] : undefined;
}

/** The treatment of a record of `ledger` with `taxType`. */
export function treatmentOf(ledger: Ledger, taxType: string): Treatment {
  return listedTreatment(ledger, taxType) ?? UNMAPPED_TREATMENT;
}
