import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { parse } from 'csv-parse/sync';
import { Decimal } from 'decimal.js';
import pg from 'pg';

import { DeFifo } from './de-fifo.ts';
import {
  futuresEntries,
  type FuturesRow,
  inOrder,
  marginEntries,
  type MarginRow,
  p2pEntries,
  type P2pRow,
  spotEntries,
  type SpotRow,
} from './entries.ts';
import { IndependentPrices } from './prices.ts';
import { Totals, type YearTotals } from './totals.ts';
import { UkPools } from './uk-pool.ts';
import { type SuppliedLot, walk } from './walk.ts';

/**
 * `npm run independent:tax`: the demo's UK and German totals per tax year computed again from the
 * demo database's records and prices with nothing of src/ (test/independent/tax/*), before and
 * after the demo's SYNTHETIC accountant figures (its two CSV files in EXPORT_DIR: the demo
 * withdraws the imports at its end), next to ledgerline's own summaries (EXPORT_DIR/<account>/ and
 * EXPORT_DIR/after-accountant/<account>/), with the relative difference. Prints a table, then one
 * JSON line. Environment: DATABASE_URL (default the demo's database), EXPORT_DIR (default ./exports).
 */
Decimal.set({ precision: 50 });
const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/ledgerline_demo';
const exportDir = path.resolve(process.env.EXPORT_DIR ?? 'exports');
const TOLERANCE = 0.0005;

const ms = `(extract(epoch from ts) * 1000)::bigint::float8 AS ms`;
const pool = new pg.Pool({ connectionString: databaseUrl });
const account = (await pool.query<{ id: string }>(`SELECT id FROM account WHERE name = 'demo'`)).rows[0]!.id;
const rows = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = [account]) =>
  (await pool.query<T>(sql, params)).rows;
const spot = await rows<SpotRow>(
  `SELECT record_id, coin, spot_tax_type, amount::text, fee::text, biz_order_id, ${ms} FROM spot_record WHERE account_id = $1`,
);
const futures = await rows<FuturesRow>(
  `SELECT record_id, margin_coin, future_tax_type, amount::text, fee::text, ${ms} FROM futures_ledger_record WHERE account_id = $1`,
);
const margin = await rows<MarginRow>(
  `SELECT record_id, margin_type, symbol, coin, margin_tax_type, amount::text, fee::text, ${ms} FROM margin_ledger_record WHERE account_id = $1`,
);
const p2p = await rows<P2pRow>(
  `SELECT record_id, coin, p2p_tax_type, total::text, ${ms} FROM p2p_ledger_record WHERE account_id = $1`,
);
const points = await rows<{ base: string; quote: string; ms: number; price: string; source: string }>(
  `SELECT base, quote, (extract(epoch from time) * 1000)::bigint::float8 AS ms, price::text, source
   FROM price WHERE account_id IS NULL OR account_id = $1`,
);
await pool.end();
const prices = new IndependentPrices(points);
const entries = inOrder([
  ...spotEntries(spot),
  ...futuresEntries(futures, spot),
  ...marginEntries(margin),
  ...p2pEntries(p2p),
]);

const csv = (file: string) =>
  parse(readFileSync(file), { columns: true, skip_empty_lines: true }) as Record<string, string>[];
function supplied(currency: string, after: boolean) {
  if (!after) return { lots: [] as SuppliedLot[], proceeds: new Map<string, Decimal>() };
  const lots = csv(path.join(exportDir, 'demo-cost-basis-synthetic.csv'))
    .filter((r) => r.currency === currency)
    .map((r) => ({
      coin: r.coin!,
      quantity: new Decimal(r.quantity!),
      acquiredMs: Date.parse(r.acquired_at!),
      cost: new Decimal(r.cost!),
    }));
  const proceeds = new Map(
    csv(path.join(exportDir, 'demo-proceeds-synthetic.csv'))
      .filter((r) => r.currency === currency)
      .map((r) => [r.record_id!, new Decimal(r.proceeds!)]),
  );
  return { lots, proceeds };
}

/** ledgerline's summary of a method: its `total` rows, and the period from its file name. */
function summary(dir: string, method: 'uk' | 'de') {
  const file = readdirSync(dir).find(
    (f) => f.startsWith('realized-gains-summary_') && f.includes(`_${method}_`) && f.endsWith('.csv'),
  );
  if (!file) throw new Error(`no ${method} summary in ${dir}`);
  const [, from, to] = /^realized-gains-summary_(\d{4}-\d\d-\d\d)_(\d{4}-\d\d-\d\d)_/.exec(file)!;
  const years = new Map<string, { proceeds: Decimal; costs: Decimal; gain: Decimal; unpriced: number }>();
  for (const r of csv(path.join(dir, file)).filter((x) => x.level === 'total')) {
    if (method === 'uk')
      years.set(r.tax_year!, {
        proceeds: new Decimal(r.proceeds!),
        costs: new Decimal(r.allowable_costs!),
        gain: new Decimal(r.net_gain!),
        unpriced: Number(r.unpriced_disposals),
      });
    else
      years.set(r.year!, {
        proceeds: new Decimal(r.taxable_proceeds!),
        costs: new Decimal(r.taxable_cost!).plus(r.taxable_selling_costs!),
        gain: new Decimal(r.taxable_gain!),
        unpriced: Number(r.unpriced_matches),
      });
  }
  return { from: from!, to: to!, years };
}

/** After the accountant: what still came in of unknown cost, by wallet, type and coin. */
const stillUnknown = new Map<string, { n: number; quantity: Decimal; ids: string[] }>();

function independent(method: 'uk' | 'de', from: string, to: string, after: boolean): Map<string, YearTotals> {
  const totals = new Totals();
  const currency = method === 'uk' ? 'GBP' : 'EUR';
  const unknown = (coin: string, quantity: Decimal, _ms: number, e: { wallet: string; type: string; ids: string }) => {
    if (!after) return;
    const key = `${method} ${e.wallet} ${e.type} ${coin}`;
    const s = stillUnknown.get(key) ?? { n: 0, quantity: new Decimal(0), ids: [] };
    s.n += 1;
    s.quantity = s.quantity.plus(quantity);
    s.ids.push(e.ids);
    stillUnknown.set(key, s);
  };
  if (method === 'uk') {
    const pools = new UkPools();
    walk(entries, prices, currency, pools, supplied(currency, after), true, unknown);
    pools.finish(totals, from, to);
  } else walk(entries, prices, currency, new DeFifo(totals, from, to), supplied(currency, after), false, unknown);
  const detail = process.env.INDEPENDENT_DETAIL;
  if (detail)
    writeFileSync(
      `${detail}-${method}-${after ? 'after' : 'before'}.csv`,
      totals.parts
        .map(
          (p) =>
            `${p.key.replace(' ', ',')},${p.proceeds?.plus(p.incidental).toFixed() ?? ''},${p.cost?.plus(p.incidental).toFixed() ?? ''}`,
        )
        .join('\n'),
    );
  return totals.years;
}

const accountDir = readdirSync(exportDir).find((d) => /^[0-9a-f-]{36}$/.test(d))!;
const rel = (a: Decimal, b: Decimal) => (b.isZero() ? (a.isZero() ? 0 : 1) : a.minus(b).div(b.abs()).toNumber());
const results: Record<string, unknown>[] = [];
const lines: string[] = [];
const pad = (s: string, n: number) => s.padStart(n);
lines.push(
  ['method', 'state', 'year', 'figure', 'independent', 'ledgerline', 'rel diff']
    .map((h, i) => pad(h, [6, 7, 8, 9, 18, 18, 11][i]!))
    .join(' '),
);
let worst = 0;
for (const method of ['uk', 'de'] as const)
  for (const state of ['before', 'after'] as const) {
    const dir = path.join(exportDir, ...(state === 'after' ? ['after-accountant'] : []), accountDir);
    const theirs = summary(dir, method);
    const ours = independent(method, theirs.from, theirs.to, state === 'after');
    for (const [year, t] of [...theirs.years].sort()) {
      const o = ours.get(year);
      const row: Record<string, unknown> = { method, state, year };
      for (const figure of ['proceeds', 'costs', 'gain'] as const) {
        const mine = o?.[figure] ?? new Decimal(0);
        const d = rel(mine, t[figure]);
        // The gain is a difference of two large sums: its tolerance is taken on the proceeds.
        const scaled = figure === 'gain' ? mine.minus(t.gain).abs().div(t.proceeds.abs()).toNumber() : Math.abs(d);
        worst = Math.max(worst, scaled);
        row[figure] = { independent: mine.toFixed(2), ledgerline: t[figure].toFixed(2), rel: d };
        lines.push(
          [method, state, year, figure, mine.toFixed(2), t[figure].toFixed(2), `${(d * 100).toExponential(1)}%`]
            .map((c, i) => pad(c, [6, 7, 8, 9, 18, 18, 11][i]!))
            .join(' '),
        );
      }
      row.unpriced = { independent: o?.unpriced ?? 0, ledgerline: t.unpriced };
      lines.push(
        [method, state, year, 'unpriced', String(o?.unpriced ?? 0), String(t.unpriced), '']
          .map((c, i) => pad(c, [6, 7, 8, 9, 18, 18, 11][i]!))
          .join(' '),
      );
      results.push(row);
    }
  }
for (const l of lines) console.log(l);
console.log('after the accountant, still of unknown cost (method, wallet, type, coin: arrivals, quantity, first ids):');
for (const [key, s] of [...stillUnknown].sort())
  console.log(`  ${key}: ${s.n}, ${s.quantity.toFixed()} (${s.ids.slice(0, 3).join(' ')})`);
console.log(
  `worst relative difference ${(worst * 100).toExponential(2)}% (the gain's on the proceeds), tolerance ${TOLERANCE * 100}%: ${worst <= TOLERANCE ? 'AGREE' : 'DISAGREE'}`,
);
console.log(
  JSON.stringify({
    agree: worst <= TOLERANCE,
    worstRelative: worst,
    tolerance: TOLERANCE,
    entries: entries.length,
    results,
  }),
);
