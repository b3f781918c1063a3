import type { Decimal } from 'decimal.js';

/** The proceeds of one P2P sell supplied by `ledgerline proceeds import` (proceeds-import.ts). */
export interface SuppliedSale {
  /** The sale as the gains reports name it: `p2p:<record id>`. */
  readonly recordId: string;
  /** In `currency`. */
  readonly proceeds: Decimal;
  readonly currency: string;
  /** Where the figure comes from (the CSV's `source`), carried into the row's disposal record ids. */
  readonly source: string;
}

/**
 * The supplied proceeds of one walk, by the sale's record id. Only proceeds in the walk's currency
 * count (pounds do not state a sale in euros: nothing is converted at a rate the user did not
 * give), as for supplied costs (supplied-costs.ts). A sale nobody supplied keeps its proceeds
 * unknown (`review:unknown-proceeds`), never the market value.
 */
export class SuppliedProceeds {
  private readonly byRecord = new Map<string, SuppliedSale>();

  constructor(sales: readonly SuppliedSale[], currency: string) {
    for (const sale of sales) if (sale.currency === currency) this.byRecord.set(sale.recordId, sale);
  }

  /** The supplied proceeds of the sale whose entry has these record ids, if any. */
  of(recordIds: string): SuppliedSale | undefined {
    return this.byRecord.get(recordIds);
  }
}
