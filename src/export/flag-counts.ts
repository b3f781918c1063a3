export interface UnmappedSummary {
  /** Rows carrying a value the mapping or the schema does not know. */
  rows: number;
  /** Those rows per value, e.g. { "spotTaxType=Foo": 3 }. */
  values: Record<string, number>;
}

// Distinct unmapped values kept in the manifest; beyond that they are only counted.
const MAX_UNMAPPED_VALUES = 200;

/** The manifest's per-flag counts of one export, whichever path wrote its rows. */
export class FlagCounts {
  readonly unmappedSummary: UnmappedSummary = { rows: 0, values: {} };
  readonly omitted: UnmappedSummary = { rows: 0, values: {} };
  readonly review: UnmappedSummary = { rows: 0, values: {} };
  private distinct = 0;

  omit(reason: string): void {
    this.omitted.rows++;
    this.omitted.values[reason] = (this.omitted.values[reason] ?? 0) + 1;
  }

  toReview(type: string): void {
    this.review.rows++;
    this.review.values[type] = (this.review.values[type] ?? 0) + 1;
  }

  unmapped(flag: string): void {
    const summary = this.unmappedSummary;
    summary.rows++;
    if (Object.hasOwn(summary.values, flag)) summary.values[flag]!++;
    else if (this.distinct < MAX_UNMAPPED_VALUES) {
      summary.values[flag] = 1;
      this.distinct++;
    }
  }
}
