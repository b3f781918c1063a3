import type pg from 'pg';

import { unknownCosts } from '../../accounting/cost-basis/arrivals-lacking-cost.ts';
import { FILING_CURRENCY, type RulesMethod } from '../../accounting/gains/gains-method.ts';
import { typesTreatedAs } from '../../accounting/treatments/treatment-table.ts';

/** One figure an accountant supplied (a cost of coins moved in, or the proceeds of a P2P sale). */
export interface SuppliedFigure {
  readonly kind: 'cost' | 'proceeds';
  /** The coin (cost) or the sale as the gains reports name it (proceeds). */
  readonly subject: string;
  /** Cost: the quantity it covers; proceeds: ''. */
  readonly quantity: string;
  readonly amount: string;
  readonly currency: string;
  /** Cost: acquired at; proceeds: sold at (UTC, ISO). */
  readonly at: string;
  readonly source: string;
  readonly fileName: string;
  readonly sha256: string;
  readonly importedAt: string;
  /** Who supplied it (`cli:<user>`, `web:<role>`), or '' where this installation does not record it yet. */
  readonly suppliedBy: string;
}

/** What still lacks a figure, account-wide (as the tax years page lists it). */
export interface OpenItems {
  /** Per coin: the arrivals of unknown cost lacking one in the method's currency, and their quantity lacking. */
  readonly unknownCosts: ReadonlyArray<{ coin: string; deposits: number; lacking: string }>;
  /** P2P sells without proceeds in the method's currency. */
  readonly lackingProceeds: ReadonlyArray<{ recordId: string; soldAt: string; coin: string; quantity: string }>;
}

/**
 * The provenance columns of a supplied-figure import table that this database has (SUPPLIED.md:
 * `supplied_by`, `withdrawn_at`, added by their own migration): the pack reads what exists.
 */
async function columnsOf(pool: pg.Pool, table: string): Promise<Set<string>> {
  const { rows } = await pool.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`,
    [table],
  );
  return new Set(rows.map((r) => r.column_name));
}

/** `i.supplied_by` and `i.withdrawn_at IS NULL` where the table has them; '' and true where not. */
async function provenance(pool: pg.Pool, table: string): Promise<{ by: string; live: string }> {
  const columns = await columnsOf(pool, table);
  return {
    by: columns.has('supplied_by') ? `coalesce(i.supplied_by, '')` : `''`,
    live: columns.has('withdrawn_at') ? 'i.withdrawn_at IS NULL' : 'true',
  };
}

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS"Z"'`;

/**
 * The figures supplied for the account in the method's currency (the walks of uk and de use only
 * GBP and EUR figures), withdrawn ones left out, oldest import first: what the pack's figures rest
 * on besides the exchange's records.
 */
export async function suppliedFigures(
  pool: pg.Pool,
  accountId: string,
  method: RulesMethod,
): Promise<SuppliedFigure[]> {
  const currency = FILING_CURRENCY[method];
  const costs = await provenance(pool, 'cost_basis_import');
  const proceeds = await provenance(pool, 'proceeds_import');
  const { rows } = await pool.query<SuppliedFigure>(
    `SELECT * FROM (
       SELECT 'cost' AS kind, l.coin AS subject, l.quantity::text AS quantity, l.cost::text AS amount, l.currency,
              to_char(l.acquired_at AT TIME ZONE 'UTC', ${ISO}) AS at, l.source, i.file_name AS "fileName", i.sha256,
              to_char(i.imported_at AT TIME ZONE 'UTC', ${ISO}) AS "importedAt", ${costs.by} AS "suppliedBy",
              i.imported_at AS sort_at, l.id AS sort_id
         FROM cost_basis_lot l JOIN cost_basis_import i ON i.id = l.import_id
        WHERE l.account_id = $1 AND l.currency = $2 AND ${costs.live}
       UNION ALL
       SELECT 'proceeds', p.record_id, '', p.proceeds::text, p.currency,
              to_char(p.sold_at AT TIME ZONE 'UTC', ${ISO}), p.source, i.file_name, i.sha256,
              to_char(i.imported_at AT TIME ZONE 'UTC', ${ISO}), ${proceeds.by}, i.imported_at, p.id
         FROM supplied_proceeds p JOIN proceeds_import i ON i.id = p.import_id
        WHERE p.account_id = $1 AND p.currency = $2 AND ${proceeds.live}
     ) s ORDER BY sort_at, kind, sort_id`,
    [accountId, currency],
  );
  return rows.map(
    ({ kind, subject, quantity, amount, currency: c, at, source, fileName, sha256, importedAt, suppliedBy }) => ({
      kind,
      subject,
      quantity,
      amount,
      currency: c,
      at,
      source,
      fileName,
      sha256,
      importedAt,
      suppliedBy,
    }),
  );
}

/**
 * What lacks a figure for the method, account-wide: the arrivals of unknown cost (deposits, P2P
 * buys, futures transfers in with no spot side, own moves back beyond what went away: the list the
 * accountants' page offers a form for, arrivals-lacking-cost.ts) beyond the supplied costs in its
 * currency, and P2P sells without proceeds in its currency (docs/reports.md, "Unknown cost",
 * "Unknown proceeds"). Withdrawn figures count as not supplied.
 */
export async function openItems(pool: pg.Pool, accountId: string, method: RulesMethod): Promise<OpenItems> {
  const currency = FILING_CURRENCY[method];
  const proceeds = await provenance(pool, 'proceeds_import');
  const unknown = (await unknownCosts(pool, accountId))
    .filter((u) => u.lacking[method] !== '0')
    .map((u) => ({ coin: u.coin, deposits: u.arrivalsLacking[method], lacking: u.lacking[method] }));
  const lacking = await pool.query<{ recordId: string; soldAt: string; coin: string; quantity: string }>(
    `SELECT 'p2p:' || r.record_id AS "recordId", to_char(r.ts AT TIME ZONE 'UTC', ${ISO}) AS "soldAt",
            r.coin, abs(r.total)::text AS quantity
       FROM p2p_ledger_record r
      WHERE r.account_id = $1 AND r.p2p_tax_type = ANY($2::text[])
        AND NOT EXISTS (SELECT 1 FROM supplied_proceeds p JOIN proceeds_import i ON i.id = p.import_id
                         WHERE p.account_id = r.account_id AND p.record_id = 'p2p:' || r.record_id
                           AND p.currency = $3 AND ${proceeds.live})
      ORDER BY r.ts, r.record_id`,
    [accountId, typesTreatedAs('p2p', 'unknown-proceeds'), currency],
  );
  return { unknownCosts: unknown, lackingProceeds: lacking.rows };
}
