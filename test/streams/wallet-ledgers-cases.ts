import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';

import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';

import { parseExportRequest } from '../../src/export/export-request.ts';
import { exportToFile } from '../../src/export/export-to-file.ts';
import { checkFuturesLedger } from '../../src/reconcile/checks/futures-ledger-check.ts';
import { checkWalletLedger } from '../../src/reconcile/checks/wallet-ledger-check.ts';
import type { CountCheck, WalletLedgerCheck } from '../../src/reconcile/report-types.ts';
import { runReconciliation } from '../../src/reconcile/run-reconciliation.ts';
import { p2pChange } from '../../src/simulator/ledgers/p2p.ts';
import { WALLET_LEDGERS } from '../../src/streams/registry.ts';
import type { DemoYear } from './demo-year.ts';

const DAY = 86_400_000;
let demo: DemoYear;

async function storedRaw(table: string): Promise<Record<string, unknown>[]> {
  const result = await demo.pipeline.runtime.pool.query<{ raw: Record<string, unknown> }>(
    `SELECT raw FROM ${table} WHERE account_id = $1`,
    [demo.pipeline.accountId],
  );
  return result.rows.map((r) => r.raw);
}

/** Missing and extra records of a stored table against the simulator's truth, by id. */
function compare(stored: Record<string, unknown>[], truth: Record<string, unknown>[]) {
  const storedIds = new Map(stored.map((r) => [String(r.id), r]));
  const truthIds = new Map(truth.map((r) => [String(r.id), r]));
  return {
    missing: [...truthIds.keys()].filter((id) => !storedIds.has(id)).length,
    extra: [...storedIds.keys()].filter((id) => !truthIds.has(id)).length,
    differing: [...truthIds].filter(([id, r]) => storedIds.has(id) && !isDeepStrictEqual(storedIds.get(id), r)).length,
  };
}

const walletCheck = (stream: (typeof WALLET_LEDGERS)[number]) =>
  checkWalletLedger(demo.pipeline.runtime.pool, demo.pipeline.accountId, stream);

/** The margin and P2P ledgers' cases on the demo year (demo-year-ledgers.test.ts). */
export function walletLedgersCases(of: DemoYear): void {
  demo = of;
  describe('the margin and P2P ledgers of the demo account, a year backfilled with every stream', () => {
    it('stores every margin and P2P record the exchange serves: 0 missing, 0 extra, none different', async () => {
      const margin = demo.pipeline.sim.truth('margin-ledger');
      const p2p = demo.pipeline.sim.truth('p2p-ledger');
      expect(margin.length).toBeGreaterThan(300);
      expect(p2p.length).toBeGreaterThan(50);
      expect(compare(await storedRaw('margin_ledger_record'), margin as never)).toEqual({
        missing: 0,
        extra: 0,
        differing: 0,
      });
      expect(compare(await storedRaw('p2p_ledger_record'), p2p as never)).toEqual({
        missing: 0,
        extra: 0,
        differing: 0,
      });
    });

    it('each margin wallet (marginType, coin) replays from zero to its running total, never below zero; each P2P coin to the simulator balance', async () => {
      const margin = await walletCheck('margin-ledger');
      expect(margin.wallets.map((w) => `${w.scope} ${w.coin}`)).toEqual(
        expect.arrayContaining(['crossed USDT', 'isolated BTC']),
      );
      expect(margin.breaks).toEqual([]);
      const rows = await demo.pipeline.runtime.pool.query<{ scope: string; coin: string; sum: string }>(
        `SELECT margin_type AS scope, coin, sum(amount + fee)::text AS sum FROM margin_ledger_record
          WHERE account_id = $1 GROUP BY margin_type, coin`,
        [demo.pipeline.accountId],
      );
      for (const w of margin.wallets) {
        const sum = rows.rows.find((r) => r.scope === w.scope && r.coin === w.coin)!.sum;
        expect({ wallet: `${w.scope} ${w.coin}`, replayed: new Decimal(sum).toFixed(), lowest: w.lowest }).toEqual({
          wallet: `${w.scope} ${w.coin}`,
          replayed: w.balance,
          lowest: '0',
        });
      }
      const p2p = await walletCheck('p2p-ledger');
      const rowsOfSim = demo.pipeline.sim.context
        .dataOf(demo.pipeline.sim.demo.uid)
        .p2p.visible(demo.pipeline.sim.clock.now());
      for (const w of p2p.wallets) {
        const coinRows = rowsOfSim.filter(
          (r) => demo.pipeline.sim.truth('p2p-ledger').find((t) => t.id === String(r.id))?.coin === w.coin,
        );
        const units = coinRows.reduce((sum, r) => sum + p2pChange(r), 0);
        expect({ coin: w.coin, balance: w.balance, lowest: w.lowest }).toEqual({
          coin: w.coin,
          balance: new Decimal(units).div(1e8).toFixed(),
          lowest: '0',
        });
      }
    });

    it('reconciles: every margin and P2P transfer pairs with spot, and the futures check leaves those spot transfers to them', async () => {
      for (const stream of WALLET_LEDGERS) {
        const check = await walletCheck(stream);
        expect({ stream, failures: check.failures }).toEqual({ stream, failures: [] });
        expect(check.passed).toBe(true);
      }
      const transfers = (stream: 'margin-ledger' | 'p2p-ledger') =>
        demo.pipeline.sim
          .truth(stream)
          .filter((r) => ('marginTaxType' in r ? r.marginTaxType : r.p2pTaxType).startsWith('transfer_')).length;
      expect((await walletCheck('margin-ledger')).examined).toContain(
        `${transfers('margin-ledger')} transfers paired with spot`,
      );
      expect((await walletCheck('p2p-ledger')).examined).toContain(
        `${transfers('p2p-ledger')} transfers paired with spot`,
      );
      const futures = await checkFuturesLedger(demo.pipeline.runtime.pool, demo.pipeline.accountId);
      expect(futures.failures).toEqual([]);
    });

    it('names a deleted margin record (the break in the running total around it, the re-count naming its id) and a broken transfer pair', async () => {
      const { pool } = demo.pipeline.runtime;
      const { accountId } = demo.pipeline;
      const deal = await pool.query<{ record_id: string }>(
        `SELECT record_id FROM margin_ledger_record WHERE account_id = $1 AND margin_type = 'crossed' AND coin = 'BTC'
            AND margin_tax_type = 'deal_in' AND ts > now() - interval '2 days'
          ORDER BY ts DESC LIMIT 1`,
        [accountId],
      );
      const fallback = await pool.query<{ record_id: string }>(
        `SELECT record_id FROM margin_ledger_record WHERE account_id = $1 AND margin_type = 'crossed'
            AND margin_tax_type = 'deal_in' ORDER BY ts DESC LIMIT 1 OFFSET 1`,
        [accountId],
      );
      const deleted = (deal.rows[0] ?? fallback.rows[0])!.record_id;
      const transfer = await pool.query<{ record_id: string }>(
        `SELECT record_id FROM margin_ledger_record WHERE account_id = $1 AND margin_tax_type = 'transfer_in'
          ORDER BY ts DESC LIMIT 1`,
        [accountId],
      );
      const broken = transfer.rows[0]!.record_id;
      const saved = await pool.query(
        `SELECT * FROM margin_ledger_record WHERE account_id = $1 AND record_id = ANY($2::text[])`,
        [accountId, [deleted, broken]],
      );
      expect(saved.rows).toHaveLength(2);
      try {
        await pool.query(`DELETE FROM margin_ledger_record WHERE account_id = $1 AND record_id = $2`, [
          accountId,
          deleted,
        ]);
        // The transfer's amount no longer matches its spot side (and its total no longer follows: a break too).
        await pool.query(
          `UPDATE margin_ledger_record SET amount = amount + 1, total = total + 1 WHERE account_id = $1 AND record_id = $2`,
          [accountId, broken],
        );
        const report = await runReconciliation(demo.pipeline.runtime, { accountId, recount: 'all', full: true });
        const margin = report.checks.find((c) => c.name === 'margin-ledger') as WalletLedgerCheck;
        expect(margin.passed).toBe(false);
        expect(margin.breaks.some((b) => b.scope === 'crossed')).toBe(true);
        expect(margin.failures.join('\n')).toMatch(
          /crossed \w+: record \d+ at .* has total .*, expected .* after record \d+/,
        );
        expect(margin.unpaired.map((u) => u.recordId)).toEqual([broken]);
        expect(margin.failures.join('\n')).toContain(`transfer_in ${broken}`);
        const counts = report.checks.find((c) => c.name === 'window-counts') as CountCheck;
        const marginWindows = counts.mismatches.filter((m) => m.stream === 'margin-ledger');
        expect(marginWindows.flatMap((m) => m.missing)).toEqual([deleted]);
        expect(report.summary).toContain(deleted);
      } finally {
        await pool.query(`DELETE FROM margin_ledger_record WHERE account_id = $1 AND record_id = ANY($2::text[])`, [
          accountId,
          [deleted, broken],
        ]);
        await pool.query(
          `INSERT INTO margin_ledger_record SELECT * FROM json_populate_recordset(NULL::margin_ledger_record, $1::json)`,
          [JSON.stringify(saved.rows)],
        );
      }
      expect((await walletCheck('margin-ledger')).passed).toBe(true);
    });

    it.each(['margin-ledger', 'p2p-ledger'] as const)(
      'exports the %s report of the year: one row per record, each with its treatment; the ones a person must look at flagged',
      async (stream) => {
        const { accountId } = demo.pipeline;
        const request = parseExportRequest({
          report: stream,
          accountId,
          from: new Date(Date.now() - 380 * DAY).toISOString().slice(0, 10),
          to: new Date(Date.now() + DAY).toISOString().slice(0, 10),
          tz: 'UTC',
        });
        const file = await exportToFile({
          databaseUrl: demo.db.url,
          request,
          account: { id: accountId, name: 'demo' },
          csvPath: path.join(await mkdtemp(path.join(tmpdir(), `${stream}-`)), `${stream}.csv`),
        });
        const lines = (await readFile(file.csvPath, 'utf8')).trimEnd().split('\n');
        expect(lines[0]).toBe('record_id,time_utc,time_local,ts_ms,scope,coin,type,treatment,change,total,unmapped');
        expect(lines.length - 1).toBe(demo.pipeline.sim.truth(stream).length);
        const treatments = new Set(lines.slice(1).map((line) => line.split(',')[7]));
        expect(treatments.has('unmapped')).toBe(false);
        const review = file.manifest.review.values;
        if (stream === 'margin-ledger') {
          // The walk's own words (issue 42 item 8): interest is a fee paying no trade, not an "incidental cost".
          expect([...treatments]).toEqual(
            expect.arrayContaining(['trade-leg', 'borrowing', 'other-fee', 'own-move', 'market']),
          );
          // confiscated and compensate, one of each per margin account, by type as the tax-tool files count them.
          expect(review).toEqual({ confiscated: 2, compensate: 2 });
        } else {
          expect([...treatments]).toEqual(expect.arrayContaining(['own-move', 'deposit']));
          const buys = demo.pipeline.sim.truth('p2p-ledger').filter((r) => r.p2pTaxType === 'buy').length;
          expect(review['buy']).toBe(buys);
        }
      },
    );
  });
}
