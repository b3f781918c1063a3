/** Who supplied an import's figures, when, from what, and its withdrawal if any (SUPPLIED design). */
export interface SuppliedProvenance {
  readonly sha256: string;
  readonly suppliedBy: string;
  readonly importedAt: string;
  readonly withdrawnAt: string | null;
  readonly withdrawnBy: string | null;
  readonly withdrawnReason: string | null;
}

const UTC_MS = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/** The provenance columns of an import table aliased `i`, as SuppliedProvenance names them. */
export const PROVENANCE_COLUMNS = `i.sha256, i.supplied_by AS "suppliedBy",
  to_char(i.imported_at AT TIME ZONE 'UTC', ${UTC_MS}) AS "importedAt",
  to_char(i.withdrawn_at AT TIME ZONE 'UTC', ${UTC_MS}) AS "withdrawnAt",
  i.withdrawn_by AS "withdrawnBy", i.withdrawn_reason AS "withdrawnReason"`;
