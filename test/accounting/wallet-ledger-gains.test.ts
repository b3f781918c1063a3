import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';

import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';

import { importCostBasis } from '../../src/accounting/cost-basis/cost-basis-import.ts';
import { importPrices } from '../../src/accounting/prices/import-prices.ts';
import { parseExportRequest, reportParams } from '../../src/export/export-request.ts';
import { reportFor } from '../../src/export/reports/index.ts';
import { streamReport } from '../../src/export/stream-report.ts';
import { unknownCosts } from '../../src/http/unknown-costs.ts';
import { insertAccount, insertSpot, parseCsv, withClient } from '../export/seed.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

/**
 * The gains walk reads the margin and P2P wallets from the stored ledgers (src/booking/wallet-entries.ts,
 * docs/reports.md "Margin and P2P"), each record treated as the treatment table says:
 * - a margin deal_out/deal_in pair at one instant is one trade: the given coin disposed of and the
 *   received coin acquired at one market value (HMRC CRYPTO22100; BMF 10.5.2022 Rn. 54, 58);
 * - borrow/repay: the borrowed coins acquired at market value, the repaid ones disposed of at market
 *   value (CRYPTO61620, CRYPTO22100; BGB §607 Sachdarlehen; the reading taken is in the docs);
 * - interest_repay and liquidation_fee: a disposal at market value, no further allowable cost
 *   (CRYPTO22150, CRYPTO22280);
 * - a P2P buy: cost unknown, flagged review:unknown-cost until `cost-basis import` prices it;
 * - a P2P sell: proceeds unknown, flagged review:unknown-proceeds, never the market value;
 * - transfers between spot and margin / P2P keep the lots (nothing realized);
 * - confiscated: a disposal at market value, its rows flagged review:confiscated.
 */
const db = useTestDatabase('walletgains');
let account: string;
const at = (day: string) => `2025-${day}T10:00:00.000Z`;

interface MarginRow {
  id: string;
  coin: string;
  type: string;
  amount: string;
  fee?: string;
  ts: string;
}

async function insertMargin(rows: MarginRow[]): Promise<void> {
  await withClient(db.url, async (c) => {
    for (const r of rows) {
      await c.query(
        `INSERT INTO margin_ledger_record (account_id, margin_type, record_id, coin, symbol, margin_tax_type, amount, fee, total, ts, raw)
         VALUES ($1, 'crossed', $2, $3, '', $4, $5, $6, 0, $7, '{}')`,
        [account, r.id, r.coin, r.type, r.amount, r.fee ?? '0', r.ts],
      );
    }
  });
}

async function insertP2p(rows: { id: string; coin: string; type: string; total: string; ts: string }[]): Promise<void> {
  await withClient(db.url, async (c) => {
    for (const r of rows) {
      await c.query(
        `INSERT INTO p2p_ledger_record (account_id, record_id, coin, p2p_tax_type, total, ts, raw)
         VALUES ($1, $2, $3, $4, $5, $6, '{}')`,
        [account, r.id, r.coin, r.type, r.total, r.ts],
      );
    }
  });
}

async function rows(method: 'de' | 'uk'): Promise<{ rows: Record<string, string>[]; review: Record<string, number> }> {
  const request = parseExportRequest({
    report: 'realized-gains',
    accountId: account,
    from: '2025-01-01',
    to: '2025-12-31',
    tz: 'UTC',
    method,
  });
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c));
  const result = await streamReport({
    databaseUrl: db.url,
    report: reportFor('realized-gains', method),
    params: reportParams(request, 'main', { currency: 'USDT', priceToleranceMs: 36 * 3_600_000 }),
    sink,
  });
  const [header, ...body] = parseCsv(Buffer.concat(chunks).toString('utf8'));
  return {
    rows: body.map((r) => Object.fromEntries(header!.map((name, i) => [name, r[i] ?? '']))),
    review: result.review.values,
  };
}

const pick = (r: Record<string, string>, ...names: string[]) => names.map((n) => r[n]).join(' ');

beforeAll(async () => {
  account = await insertAccount(db.url, 'wallets');
  // 1000 USDT bought through P2P (no fiat amount in the record), moved to spot, then to margin.
  await insertP2p([
    { id: 'p1', coin: 'USDT', type: 'buy', total: '1000', ts: at('01-10') },
    { id: 'p2', coin: 'USDT', type: 'transfer_out', total: '1000', ts: at('01-11') },
    { id: 'p3', coin: 'USDT', type: 'transfer_in', total: '10', ts: at('03-07') },
    { id: 'p4', coin: 'USDT', type: 'sell', total: '10', ts: at('03-08') },
  ]);
  await insertSpot(db.url, account, [
    { recordId: 's1', coin: 'USDT', spotTaxType: 'Transfer in', amount: '1000', ts: at('01-11') },
    { recordId: 's2', coin: 'USDT', spotTaxType: 'Transfer out', amount: '-1000', ts: at('01-12') },
    { recordId: 's3', coin: 'USDT', spotTaxType: 'Transfer in', amount: '10', ts: at('03-06') },
    { recordId: 's4', coin: 'USDT', spotTaxType: 'Transfer out', amount: '-10', ts: at('03-07') },
  ]);
  await insertMargin([
    { id: 'm1', coin: 'USDT', type: 'transfer_in', amount: '1000', ts: at('01-12') },
    { id: 'm2', coin: 'USDT', type: 'borrow', amount: '600', ts: at('01-12') },
    // A margin buy: 1500 USDT for 0.03 BTC, its fee 0.00003 BTC.
    { id: 'm3', coin: 'BTC', type: 'deal_in', amount: '0.03', fee: '-0.00003', ts: at('02-03') },
    { id: 'm4', coin: 'USDT', type: 'deal_out', amount: '-1500', ts: at('02-03') },
    // A margin sell: 0.01 BTC for 520 USDT.
    { id: 'm5', coin: 'BTC', type: 'deal_out', amount: '-0.01', ts: at('03-03') },
    { id: 'm6', coin: 'USDT', type: 'deal_in', amount: '520', ts: at('03-03') },
    { id: 'm7', coin: 'USDT', type: 'interest_repay', amount: '-2', ts: at('03-04') },
    { id: 'm8', coin: 'USDT', type: 'repay', amount: '-600', ts: at('03-04') },
    { id: 'm9', coin: 'USDT', type: 'liquidation_fee', amount: '-1', ts: at('03-05') },
    { id: 'ma', coin: 'USDT', type: 'transfer_out', amount: '-10', ts: at('03-06') },
    // Coins the exchange took, the record not saying why: a disposal at market value, for review.
    { id: 'mb', coin: 'USDT', type: 'confiscated', amount: '-0.5', ts: at('03-09') },
  ]);
  // Daily prices: USDT at 0.9 EUR / 0.8 GBP; BTC at 45,000 EUR / 40,000 GBP in February, 50,000 / 44,000 in March.
  const lines = ['date,base,quote,price,source'];
  for (let day = 0; day < 90; day++) {
    const date = new Date(Date.UTC(2025, 0, 1 + day)).toISOString().slice(0, 10);
    const march = date >= '2025-03-01';
    lines.push(`${date},USDT,EUR,0.9,test`, `${date},USDT,GBP,0.8,test`);
    lines.push(`${date},BTC,EUR,${march ? 50000 : 45000},test`, `${date},BTC,GBP,${march ? 44000 : 40000},test`);
  }
  await withClient(db.url, (c) => importPrices(c, Readable.from([`${lines.join('\n')}\n`])));
});

describe('the gains walk over the margin and P2P wallets', () => {
  it('before any import: the margin trades dispose at market value, the repayment is a disposal at market value, the transfers realize nothing, the interest and the liquidation fee are disposals at market value, the P2P buy’s cost is unknown and the P2P sell’s proceeds too', async () => {
    const { rows: de, review } = await rows('de');
    expect(
      de.map((r) =>
        pick(r, 'disposed_at', 'coin', 'quantity', 'proceeds', 'cost_basis', 'gain', 'disposal_record_ids', 'wallet'),
      ),
    ).toEqual([
      // The margin buy (CRYPTO22100): 1500 USDT given for the 0.02997 BTC kept, worth 0.02997 x 45,000 = 1348.65;
      // FIFO: the 1000 USDT bought through P2P (cost unknown, flagged), then 500 of the 600 borrowed (cost 540 x 5/6).
      // Proceeds gross, as Anlage SO asks: the fee's 0.00003 BTC (at the trade's price, 1348.65 x
      // 0.00003 / 0.02997 = 1.35) is the sale's Werbungskosten (selling_costs), so the 1500 USDT
      // went for 1350 (900 and 450) and the gain stays 450 - 450 - 0.45.
      '2025-02-03T10:00:00.000+00:00 USDT 1000 900 ' + '  margin:m4+margin:m3 margin',
      '2025-02-03T10:00:00.000+00:00 USDT 500 450 450 -0.45 margin:m4+margin:m3 margin',
      // The margin sell: 0.01 BTC for 520 USDT (468 EUR); the BTC cost 1348.65 x 0.01/0.02997.
      '2025-03-03T10:00:00.000+00:00 BTC 0.01 468 450 18 margin:m5+margin:m6 margin',
      // Interest paid (CRYPTO22150): 2 USDT disposed of at market value 1.8, cost 1.8 (the borrowed lot's): gain 0.
      '2025-03-04T10:00:00.000+00:00 USDT 2 1.8 1.8 0 margin:m7 margin',
      // The repayment (m8): 600 USDT disposed of at market value (600 x 0.9 = 540), FIFO from what is
      // left: 98 of the borrowed lot (cost 98 x 0.9), then 502 of the 520 from the margin sell (cost
      // 502 x 0.9): each part's proceeds its quantity x 0.9, gain 0 (USDT did not move against EUR).
      '2025-03-04T10:00:00.000+00:00 USDT 98 88.2 88.2 0 margin:m8 margin',
      '2025-03-04T10:00:00.000+00:00 USDT 502 451.8 451.8 0 margin:m8 margin',
      // The liquidation fee is a disposal at market value.
      '2025-03-05T10:00:00.000+00:00 USDT 1 0.9 0.9 0 margin:m9 margin',
      // The P2P sell: proceeds unknown (never the market value).
      '2025-03-08T10:00:00.000+00:00 USDT 10  9 ' + ' p2p:p4 p2p',
      // confiscated: at market value, flagged review:confiscated.
      '2025-03-09T10:00:00.000+00:00 USDT 0.5 0.45 0.45 0 margin:mb margin',
    ]);
    expect(review).toEqual({ 'unknown-cost': 1, 'unknown-proceeds': 1, confiscated: 1 });
  });

  it('under uk the same events: the repayment a disposal at market value; HMRC’s 30-day rule matches the margin sell’s USDT with the margin buy’s (TCGA92 s106A)', async () => {
    const { rows: uk, review } = await rows('uk');
    expect(
      uk.map((r) => pick(r, 'disposed_on', 'coin', 'rule', 'quantity', 'proceeds', 'allowable_cost', 'wallet')),
    ).toEqual([
      // 1500 USDT for 0.03 BTC, the fee apportioned (CRYPTO22150): 0.02997 x 40,000 + 0.00003 x 40,000 / 2 = 1199.4.
      // The 520 USDT received on 3 March match first (30-day rule) at their cost 520 x 0.8 = 416; the rest
      // comes from the pool, which holds the P2P buy of unknown cost (its cost unknown, flagged).
      // Shown gross (SA108): proceeds 1199.4 + the half of the fee charged to the disposal (0.6) =
      // 1200, shared 520/1500 and 980/1500; the 0.6 in the allowable costs (520/1500 of it: 0.208).
      '2025-02-03 USDT 30-day 520 416 416.208 margin',
      '2025-02-03 USDT s104 980 784  margin',
      '2025-03-03 BTC s104 0.01 416 400.2002002002 margin',
      // 4 March: the interest (2) and the repayment (600) are one day's disposal (TCGA92 s105(1)(a)) at
      // market value, (2 + 600) x 0.8 = 481.6, from the pool; the liquidation fee 1 x 0.8.
      '2025-03-04 USDT s104 602 481.6  margin',
      '2025-03-05 USDT s104 1 0.8  margin',
      // The P2P sell: proceeds unknown; its pool's cost too (unknown cost is flagged first).
      '2025-03-08 USDT s104 10   p2p',
      '2025-03-09 USDT s104 0.5 0.4  margin',
    ]);
    // Nothing beyond the holdings: the pool followed the coins into margin, through the loan and back.
    expect(review).toEqual({ 'unknown-cost': 5 });
  });

  it('a margin or P2P record stored, changed or deleted logs the instant it changes the walk from (so stored lot checkpoints after it stop matching); one rewritten unchanged logs nothing', async () => {
    const logged = () =>
      withClient(db.url, async (c) => {
        const { rows: log } = await c.query<{ source: string; from: string }>(
          `SELECT source, to_char(changed_from AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS from FROM gains_input_change
            WHERE account_id = $1 AND source IN ('margin_ledger_record', 'p2p_ledger_record') ORDER BY id`,
          [account],
        );
        return log.map((r) => `${r.source} ${r.from}`);
      });
    const before = (await logged()).length;
    await withClient(db.url, async (c) => {
      await c.query(`UPDATE margin_ledger_record SET amount = amount WHERE account_id = $1`, [account]);
      await c.query(`UPDATE p2p_ledger_record SET total = total WHERE account_id = $1`, [account]);
    });
    expect((await logged()).length).toBe(before);
    await withClient(db.url, async (c) => {
      await c.query(`UPDATE margin_ledger_record SET fee = '-0.1' WHERE account_id = $1 AND record_id = 'm9'`, [
        account,
      ]);
      await c.query(`UPDATE margin_ledger_record SET fee = '0' WHERE account_id = $1 AND record_id = 'm9'`, [account]);
      await c.query(`UPDATE p2p_ledger_record SET total = total WHERE account_id = $1 AND record_id = 'p4'`, [account]);
    });
    await insertP2p([{ id: 'p9', coin: 'USDT', type: 'transfer_in', total: '0', ts: at('12-30') }]);
    await withClient(db.url, (c) =>
      c.query(`DELETE FROM p2p_ledger_record WHERE account_id = $1 AND record_id = 'p9'`, [account]),
    );
    expect((await logged()).slice(before)).toEqual([
      'margin_ledger_record 2025-03-05',
      'margin_ledger_record 2025-03-05',
      'p2p_ledger_record 2025-12-30',
      'p2p_ledger_record 2025-12-30',
    ]);
  });

  it('the accountants’ page lists the P2P buy as lacking a cost until an import supplies it', async () => {
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      expect(await unknownCosts(pool, account)).toEqual([
        {
          coin: 'USDT',
          deposits: 1,
          movedIn: '1000',
          supplied: { uk: '0', de: '0' },
          lacking: { uk: '1000', de: '1000' },
          arrivalsLacking: { uk: 1, de: 1 },
        },
      ]);
    } finally {
      await pool.end();
    }
  });

  it('`cost-basis import` prices the P2P buy: the margin trade consuming it has the supplied cost, no longer flagged', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'p2p-cost-'));
    const file = path.join(dir, 'p2p.csv');
    writeFileSync(
      file,
      'coin,quantity,acquired_at,cost,currency,source,note\nUSDT,1000,2025-01-10,905,EUR,bank-statement,P2P buy p2p:p1\n',
    );
    await withClient(db.url, (c) => importCostBasis(c, account, file));
    const { rows: de, review } = await rows('de');
    expect(pick(de[0]!, 'coin', 'quantity', 'proceeds', 'cost_basis', 'gain', 'acquired_at')).toBe(
      // Gross proceeds 900 (see above), cost 905, selling costs 1000/1500 of 1.35 = 0.9: gain -5.9.
      'USDT 1000 900 905 -5.9 2025-01-10T00:00:00.000+00:00',
    );
    expect(review).toEqual({ 'unknown-proceeds': 1, confiscated: 1 });
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      // A cost in euros prices the de walk only: the uk figures (pounds) still lack it.
      expect(await unknownCosts(pool, account)).toEqual([
        {
          coin: 'USDT',
          deposits: 1,
          movedIn: '1000',
          supplied: { uk: '0', de: '1000' },
          lacking: { uk: '1000', de: '0' },
          arrivalsLacking: { uk: 1, de: 0 },
        },
      ]);
    } finally {
      await pool.end();
    }
  });
});
