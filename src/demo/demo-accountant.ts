import { writeFile } from 'node:fs/promises';
import path from 'node:path';

import type pg from 'pg';

import { importCostBasis } from '../accounting/cost-basis/cost-basis-import.ts';
import { P2P_SELL_TYPES, unknownCostArrivals } from '../accounting/gains/unknown-cost-arrivals.ts';
import { importProceeds } from '../accounting/proceeds/proceeds-import.ts';
import { lackingProceeds, unknownCosts } from '../http/unknown-costs.ts';
import {
  ACCOUNTANT_CURRENCIES,
  type DemoMove,
  type PricePoint,
  syntheticCostBasisCsv,
  syntheticProceedsCsv,
} from './demo-accountant-rule.ts';
import { SYNTHETIC_FIAT_SOURCE } from './demo-fiat.ts';

export const COST_BASIS_FILE = 'demo-cost-basis-synthetic.csv';
export const PROCEEDS_FILE = 'demo-proceeds-synthetic.csv';

export interface DemoAccountant {
  costBasisFile: string;
  proceedsFile: string;
  /** Coins moved in (deposits, P2P buys) given a synthetic cost, and those left without (no price). */
  lots: { covered: number; skipped: number };
  sells: { covered: number; skipped: number };
  /** What the accountants' page lists as lacking, before and after the import: coins, P2P sells. */
  lacking: { before: { coins: number; sells: number }; after: { coins: number; sells: number } };
}

/**
 * The arrivals the gains walk takes in of unknown cost (unknownCostArrivals: deposits, P2P buys,
 * futures transfers in with no spot side, own moves back beyond what went away; the list the
 * accountants' page offers a form for) and the P2P sells, each with its instant, in walk order.
 */
async function moves(pool: pg.Pool, accountId: string): Promise<{ movedIn: DemoMove[]; sells: DemoMove[] }> {
  const { rows } = await pool.query<{ recordId: string; coin: string; quantity: string; ms: string }>(
    `SELECT 'p2p:' || record_id AS "recordId", coin, abs(total)::text AS quantity,
            (extract(epoch FROM ts) * 1000)::bigint::text AS ms
       FROM p2p_ledger_record WHERE account_id = $1 AND p2p_tax_type = ANY($2::text[]) AND total > 0
      ORDER BY ts, record_id COLLATE "C"`,
    [accountId, P2P_SELL_TYPES],
  );
  const movedIn = (await unknownCostArrivals(pool, accountId)).map(({ recordId, coin, quantity, atMs }) => ({
    recordId,
    coin,
    quantity,
    atMs,
  }));
  // A sale whose proceeds someone already supplied (on the page, say) keeps them: the demo's
  // accountant never contradicts a live figure (the import would refuse the whole file).
  const supplied = await pool.query<{ recordId: string }>(
    `SELECT DISTINCT p.record_id AS "recordId" FROM supplied_proceeds p
       JOIN proceeds_import i ON i.id = p.import_id
      WHERE p.account_id = $1 AND i.withdrawn_at IS NULL AND i.file_name <> $2`,
    [accountId, PROCEEDS_FILE],
  );
  const taken = new Set(supplied.rows.map((r) => r.recordId));
  const sells = rows.filter((r) => !taken.has(r.recordId)).map((r) => ({ ...r, atMs: Number(r.ms) }));
  return { movedIn, sells };
}

/** The imported daily closes (source simulator) and the synthetic fiat series, by `<base>/<quote>`. */
async function priceSeries(pool: pg.Pool): Promise<Map<string, PricePoint[]>> {
  const { rows } = await pool.query<{ base: string; quote: string; ms: string; price: string }>(
    `SELECT base, quote, (extract(epoch FROM time) * 1000)::bigint::text AS ms, price::text
       FROM price WHERE account_id IS NULL AND ((source = 'simulator' AND quote = 'USDT')
         OR (source = $1 AND base = 'USDT' AND quote = ANY($2::text[])))
      ORDER BY time`,
    [SYNTHETIC_FIAT_SOURCE, ACCOUNTANT_CURRENCIES],
  );
  const series = new Map<string, PricePoint[]>();
  for (const r of rows) {
    const key = `${r.base}/${r.quote}`;
    const points = series.get(key) ?? [];
    points.push({ ms: Number(r.ms), price: r.price });
    series.set(key, points);
  }
  return series;
}

/**
 * Withdraws the synthetic figures the demo imported (their imports, by file name), as an
 * accountant withdraws a figure on the page: a logged decision, the imports kept and listed as
 * withdrawn by `demo`, so that the database's figures are as read and the "after" state is one
 * import (or the page's list) away. Every gains walk and cached figure notices (the import tables'
 * trigger logs the change).
 */
export async function forgetSyntheticAccountant(pool: pg.Pool, accountId: string): Promise<void> {
  for (const [table, file] of [
    ['cost_basis_import', COST_BASIS_FILE],
    ['proceeds_import', PROCEEDS_FILE],
  ] as const) {
    await pool.query(
      `UPDATE ${table} SET withdrawn_at = now(), withdrawn_by = 'demo', withdrawn_reason = $3
        WHERE account_id = $1 AND file_name = $2 AND withdrawn_at IS NULL`,
      [accountId, file, 'SYNTHETIC figures of the demo: withdrawn so the database holds the figures as read'],
    );
  }
}

/**
 * Writes the SYNTHETIC accountant's files into EXPORT_DIR (demo-accountant-rule.ts states the rule)
 * and imports them with the functions `ledgerline cost-basis import` / `proceeds import` call.
 */
export async function supplySyntheticAccountant(
  pool: pg.Pool,
  exportDir: string,
  accountId: string,
): Promise<DemoAccountant> {
  const lacking = async () => ({
    coins: (await unknownCosts(pool, accountId)).length,
    sells: (await lackingProceeds(pool, accountId)).length,
  });
  const before = await lacking();
  const { movedIn, sells } = await moves(pool, accountId);
  const series = await priceSeries(pool);
  const costBasis = syntheticCostBasisCsv(movedIn, series);
  const proceeds = syntheticProceedsCsv(sells, series);
  const costBasisFile = path.join(exportDir, COST_BASIS_FILE);
  const proceedsFile = path.join(exportDir, PROCEEDS_FILE);
  await writeFile(costBasisFile, costBasis.csv);
  await writeFile(proceedsFile, proceeds.csv);
  const client = await pool.connect();
  try {
    if (costBasis.rows > 0) await importCostBasis(client, accountId, costBasisFile);
    if (proceeds.rows > 0) await importProceeds(client, accountId, proceedsFile);
  } finally {
    client.release();
  }
  return {
    costBasisFile,
    proceedsFile,
    lots: { covered: costBasis.covered, skipped: costBasis.skipped },
    sells: { covered: proceeds.covered, skipped: proceeds.skipped },
    lacking: { before, after: await lacking() },
  };
}
