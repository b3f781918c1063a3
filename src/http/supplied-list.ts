import type pg from 'pg';

import { listAwayDecisionImports } from '../accounting/cost-basis/away-decision-import.ts';
import { listCostBasisImports } from '../accounting/cost-basis/cost-basis-import.ts';
import type { SuppliedProvenance } from '../accounting/cost-basis/supplied-provenance.ts';
import { listProceedsImports } from '../accounting/proceeds/proceeds-import.ts';

/** The kinds of supplied figures the page takes, and the import table of each. */
export const SUPPLIED_KINDS = {
  'cost-basis': { table: 'cost_basis_import', words: 'Costs of coins moved in' },
  proceeds: { table: 'proceeds_import', words: 'Proceeds of P2P sales' },
  'away-decision': { table: 'away_decision_import', words: 'Decisions on coins away' },
} as const;
export type SuppliedKind = keyof typeof SUPPLIED_KINDS;

export const isSuppliedKind = (value: string | undefined): value is SuppliedKind =>
  value !== undefined && Object.hasOwn(SUPPLIED_KINDS, value);

/** One import of supplied figures as the page lists it: what, who, when, from what, and its state. */
export interface SuppliedImport extends SuppliedProvenance {
  readonly kind: SuppliedKind;
  readonly id: string;
  readonly fileName: string;
  readonly sources: string;
  readonly rows: number;
  /**
   * The lots (cost-basis), sales (proceeds) or decisions (away-decision) it added: a row a live
   * import already held is not added twice.
   */
  readonly added: number;
  readonly currencies: string;
}

/** Every import of the account, every kind, newest first (withdrawn ones included, marked). */
export async function suppliedImports(pool: pg.Pool, accountId: string): Promise<SuppliedImport[]> {
  const client = await pool.connect();
  try {
    const costs = (await listCostBasisImports(client, accountId)).map(({ lots, ...i }): SuppliedImport => ({
      ...i,
      kind: 'cost-basis',
      added: lots,
    }));
    const proceeds = (await listProceedsImports(client, accountId)).map(({ sales, ...i }): SuppliedImport => ({
      ...i,
      kind: 'proceeds',
      added: sales,
    }));
    const decisions = (await listAwayDecisionImports(client, accountId)).map(({ decisions, ...i }): SuppliedImport => ({
      ...i,
      kind: 'away-decision',
      added: decisions,
      currencies: '',
    }));
    return [...costs, ...proceeds, ...decisions].sort(
      (a, b) => b.importedAt.localeCompare(a.importedAt) || Number(b.id) - Number(a.id),
    );
  } finally {
    client.release();
  }
}
