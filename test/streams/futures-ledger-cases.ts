import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';

import { exportCoverage } from '../../src/export/export-coverage.ts';
import { parseExportRequest } from '../../src/export/export-request.ts';
import { exportToFile } from '../../src/export/export-to-file.ts';
import { coveredRanges } from '../../src/ingest/coverage/window-store.ts';
import { checkFuturesLedger } from '../../src/reconcile/checks/futures-ledger-check.ts';
import { futureRecordHorizon } from '../../src/streams/futures-ledger/endpoint.ts';
import { storedFuturesLedger, truthFuturesLedger } from '../helpers/ground-truth.ts';
import type { DemoYear } from './demo-year.ts';

const DAY = 86_400_000;
let demo: DemoYear;

/** The futures ledger's cases on the demo year (demo-year-ledgers.test.ts). */
export function futuresLedgerCases(of: DemoYear): void {
  demo = of;
  describe('the futures ledger of the demo account, backfilled with every stream', () => {
    it('is stored exactly as the exchange serves it, each productType covered from the horizon on', async () => {
      const { pool } = demo.pipeline.runtime;
      const stored = await storedFuturesLedger(pool, demo.pipeline.accountId);
      expect(stored.length).toBeGreaterThan(10_000);
      expect(stored).toEqual(truthFuturesLedger(demo.pipeline.sim));
      for (const scope of ['USDT-FUTURES', 'COIN-FUTURES', 'USDC-FUTURES']) {
        const covered = await coveredRanges(pool, {
          accountId: demo.pipeline.accountId,
          stream: 'futures-ledger',
          scope,
        });
        expect(covered).toHaveLength(1);
        expect(covered[0]!.start).toBeLessThanOrEqual(futureRecordHorizon(Date.now()));
      }
    });

    it('replayed per margin coin from its first record: never below zero, ending at the futures balance', async () => {
      const rows = await demo.pipeline.runtime.pool.query<{ margin_coin: string; balance: string; lowest: string }>(
        `SELECT margin_coin, (array_agg(running ORDER BY ts DESC, record_id DESC))[1]::text AS balance,
                min(running)::text AS lowest
           FROM (SELECT margin_coin, ts, record_id,
                        sum(amount + fee) OVER (PARTITION BY product_type, margin_coin ORDER BY ts, record_id) AS running
                   FROM futures_ledger_record WHERE account_id = $1) r
          GROUP BY margin_coin`,
        [demo.pipeline.accountId],
      );
      const balances = demo.pipeline.sim.futuresBalances();
      expect(rows.rows.map((r) => r.margin_coin).sort()).toEqual(balances.map((b) => b.marginCoin).sort());
      for (const row of rows.rows) {
        expect({ coin: row.margin_coin, negative: new Decimal(row.lowest).isNegative() }).toEqual({
          coin: row.margin_coin,
          negative: false,
        });
        const exchange = balances.find((b) => b.marginCoin === row.margin_coin)!;
        expect({ coin: row.margin_coin, balance: new Decimal(row.balance).toFixed() }).toEqual({
          coin: row.margin_coin,
          balance: new Decimal(exchange.balance).toFixed(),
        });
      }
    });

    it('reconciles: every spot<->futures transfer pairs and every closed position ties to its records', async () => {
      const check = await checkFuturesLedger(demo.pipeline.runtime.pool, demo.pipeline.accountId);
      expect(check.failures).toEqual([]);
      expect(check.passed).toBe(true);
      // Spot transfers whose other side is a margin account or the P2P wallet are those ledgers' to pair.
      const elsewhere =
        demo.pipeline.sim.truth('margin-ledger').filter((r) => r.marginTaxType.startsWith('transfer_')).length +
        demo.pipeline.sim.truth('p2p-ledger').filter((r) => r.p2pTaxType.startsWith('transfer_')).length;
      const spotTransfers =
        demo.pipeline.sim
          .truth('spot')
          .filter((r) => r.spotTaxType === 'Transfer in' || r.spotTaxType === 'Transfer out').length - elsewhere;
      expect(check.examined).toContain(`${spotTransfers} spot<->futures transfers paired`);
      const positions = await demo.pipeline.runtime.pool.query(`SELECT count(*)::int AS n FROM futures_position`);
      expect(check.examined).toContain(`${positions.rows[0].n} of ${positions.rows[0].n} closed positions tied`);
      // The wallets' opening transfers precede the spot history: noted, not failed.
      expect(check.notes.join('\n')).toMatch(/^8 futures transfer\(s\) older than the first stored spot record/m);
      expect(check.wallets.every((w) => w.lowest === '0')).toBe(true);
    });

    it('names a transfer seen on one side only, with both ids when two near ones differ; and an untied position', async () => {
      const { pool } = demo.pipeline.runtime;
      const { accountId } = demo.pipeline;
      const transfers = await pool.query<{ record_id: string; ts: Date }>(
        `SELECT record_id, ts FROM futures_ledger_record WHERE account_id = $1 AND future_tax_type = 'TRANSFER_IN'
          ORDER BY ts DESC LIMIT 2`,
        [accountId],
      );
      const [dropped, changed] = transfers.rows;
      const close = await pool.query<{ record_id: string }>(
        `SELECT record_id FROM futures_ledger_record WHERE account_id = $1 AND future_tax_type LIKE 'CLOSE%'
          ORDER BY ts DESC LIMIT 1`,
        [accountId],
      );
      const saved = await pool.query(
        `SELECT * FROM futures_ledger_record WHERE account_id = $1 AND record_id = ANY($2::text[])`,
        [accountId, [dropped!.record_id, changed!.record_id, close.rows[0]!.record_id]],
      );
      try {
        await pool.query(`DELETE FROM futures_ledger_record WHERE account_id = $1 AND record_id = ANY($2::text[])`, [
          accountId,
          [dropped!.record_id, close.rows[0]!.record_id],
        ]);
        await pool.query(
          `UPDATE futures_ledger_record SET amount = amount + 1 WHERE account_id = $1 AND record_id = $2`,
          [accountId, changed!.record_id],
        );
        const check = await checkFuturesLedger(pool, accountId);
        expect(check.passed).toBe(false);
        const spotOf = (ts: Date) =>
          demo.pipeline.sim
            .truth('spot')
            .filter((r) => r.spotTaxType === 'Transfer out' && Number(r.ts) === ts.getTime())
            .map((r) => r.id);
        expect(check.unpaired).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ spotRecordId: spotOf(dropped!.ts)[0], futuresRecordId: null }),
            expect.objectContaining({ spotRecordId: spotOf(changed!.ts)[0], futuresRecordId: changed!.record_id }),
          ]),
        );
        expect(check.untiedPositions).toBe(1);
        expect(check.failures.join('\n')).toMatch(
          /^position \d+ \(\w+ (long|short)\): no ledger record for its close/m,
        );
      } finally {
        await pool.query(`DELETE FROM futures_ledger_record WHERE account_id = $1 AND record_id = ANY($2::text[])`, [
          accountId,
          saved.rows.map((r: { record_id: string }) => r.record_id),
        ]);
        for (const row of saved.rows as Record<string, unknown>[]) {
          const columns = Object.keys(row);
          await pool.query(
            `INSERT INTO futures_ledger_record (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
            columns.map((c) => (c === 'raw' ? JSON.stringify(row[c]) : row[c])),
          );
        }
      }
      expect((await checkFuturesLedger(pool, accountId)).passed).toBe(true);
    });

    it('exports the futures-ledger report of a covered month, each record with its category; an uncovered one is partial', async () => {
      const { accountId } = demo.pipeline;
      const month = new Date(Date.now() - 40 * DAY);
      const from = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth(), 1));
      const to = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1));
      const request = parseExportRequest({
        report: 'futures-ledger',
        accountId,
        from: from.toISOString().slice(0, 10),
        to: new Date(to.getTime() - DAY).toISOString().slice(0, 10),
        tz: 'UTC',
      });
      const file = await exportToFile({
        databaseUrl: demo.db.url,
        request,
        account: { id: accountId, name: 'demo' },
        csvPath: path.join(await mkdtemp(path.join(tmpdir(), 'futures-ledger-')), 'futures-ledger.csv'),
      });
      const lines = (await readFile(file.csvPath, 'utf8')).trimEnd().split('\n');
      expect(lines[0]).toBe(
        'record_id,time_utc,time_local,ts_ms,product_type,margin_coin,symbol,future_tax_type,category,amount,fee,change,unmapped',
      );
      const expected = demo.pipeline.sim
        .truth('futures-ledger')
        .filter((r) => Number(r.ts) >= from.getTime() && Number(r.ts) < to.getTime());
      expect(lines.length - 1).toBe(expected.length);
      const categories = new Set(lines.slice(1).map((line) => line.split(',')[8]));
      // The simulator's history is laid out from the day the test runs: a month may lack a liquidation.
      expect([...categories]).toEqual(expect.arrayContaining(['fee', 'funding', 'realized-pnl', 'transfer']));
      expect(
        [...categories].every((c) => ['fee', 'funding', 'realized-pnl', 'transfer', 'liquidation'].includes(c!)),
      ).toBe(true);
      const coverage = await exportCoverage(
        demo.db.url,
        accountId,
        { start: new Date(Date.now() - 500 * DAY), end: from },
        ['futures-ledger'],
      );
      expect(coverage.complete).toBe(false);
    });
  });
}
