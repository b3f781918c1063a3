import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Decimal } from 'decimal.js';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FUTURES_BOOKINGS } from '../../src/booking/futures-bookings.ts';
import { bookingOf } from '../../src/booking/spot-bookings.ts';
import { labelsOf } from '../../src/booking/tax-tool-labels.ts';
import { parseExportRequest } from '../../src/export/export-request.ts';
import { type ExportedFile, exportToFile } from '../../src/export/export-to-file.ts';
import { COINTRACKING_TYPES } from '../../src/export/reports/cointracking.ts';
import { FUTURES_WALLETS } from '../../src/simulator/data/futures-wallets.ts';
import { FUTURES_MARKETS } from '../../src/simulator/data/markets.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { insertAccount, insertSpot, insertTruth, parseCsv, type Truth } from './seed.ts';

/**
 * Acceptance 1: on the simulator's demo data, stored exactly as the exchange returns it, every
 * report's rows equal the records, field by field and digit by digit, and every total equals
 * the sum Postgres computes. Expectations are computed from the simulator's records in
 * JavaScript, independently of the export's SQL.
 */
const db = useTestDatabase('exportmatch');
const NOW = Date.UTC(2026, 9, 15, 12, 0, 0);
const TZ = 'Europe/Berlin';
const ACCOUNT_NAME = 'demo-account';
const UNKNOWN_TYPE = 'Quantum staking bonus';

let truth: Truth;
let futuresLedger: Array<Record<string, string>>;
let futuresAccount: string;
let accountId: string;
let dir: string;

const byteCompare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const abs = (value: string) => (value.startsWith('-') ? value.slice(1) : value);
const isoUtc = (ms: string) => new Date(Number(ms)).toISOString();
const isoLocal = (ms: string) => DateTime.fromMillis(Number(ms), { zone: TZ }).toFormat("yyyy-MM-dd'T'HH:mm:ss.SSSZZ");

function within(from: string, to: string) {
  const start = DateTime.fromISO(from, { zone: TZ }).toMillis();
  const end = DateTime.fromISO(to, { zone: TZ }).plus({ days: 1 }).toMillis();
  return (ms: string) => Number(ms) >= start && Number(ms) < end;
}

async function exportCsv(
  report: string,
  from: string,
  to: string,
  extra: { includePending?: boolean; account?: string } = {},
) {
  const { account = accountId, ...rest } = extra;
  const request = parseExportRequest({ report, accountId: account, from, to, tz: TZ, ...rest });
  const file: ExportedFile = await exportToFile({
    databaseUrl: db.url,
    request,
    account: { id: accountId, name: ACCOUNT_NAME },
    csvPath: path.join(dir, `${report}-${from}-${to}${extra.includePending ? '-pending' : ''}.csv`),
  });
  const rows = parseCsv(await readFile(file.csvPath, 'utf8'));
  return { header: rows[0]!, rows: rows.slice(1), manifest: file.manifest };
}

beforeAll(async () => {
  const productTypeOfCoin = new Map(FUTURES_WALLETS.map((w) => [w.marginCoin, w.productType]));
  const sim = await startSimulator({ scale: 'demo', now: NOW, seed: 42, rateLimits: { enabled: false } });
  try {
    truth = {
      spot: sim.truth('spot').map((r) => ({ ...r })),
      positions: sim.truth('positions').map((r) => ({ ...r })),
      transfers: sim.truth('transfers').map((r) => ({ ...r })),
    };
    futuresLedger = sim
      .truth('futures-ledger')
      .map((r) => ({ ...r, productType: productTypeOfCoin.get(r.marginCoin!)! }));
  } finally {
    await sim.close();
  }
  // A type the spec does not list yet: it must be exported as `unmapped` and counted, never dropped.
  truth.spot.push({
    id: '9999999999999',
    coin: 'USDT',
    spotTaxType: UNKNOWN_TYPE,
    amount: '1.23450000',
    fee: '0',
    balance: '100.00000000',
    bizOrderId: '',
    ts: String(Date.UTC(2026, 5, 1, 12)),
  });
  accountId = await insertAccount(db.url, ACCOUNT_NAME);
  const productType = new Map(FUTURES_MARKETS.map((m) => [m.symbol, m.productType]));
  await insertTruth(db.url, accountId, truth, (symbol) => productType.get(symbol)!);
  // The futures ledger in an account of its own (the tax-tool files here are checked against spot alone).
  futuresAccount = await insertAccount(db.url, 'futures-only');
  await insertTruth(db.url, futuresAccount, { spot: [], positions: [], transfers: [], futuresLedger }, () => '');
  // Another account's records must never leak into this account's reports.
  const other = await insertAccount(db.url, 'other');
  await insertSpot(db.url, other, [
    { recordId: 'x1', coin: 'BTC', spotTaxType: 'Deposit', amount: '5', ts: NOW - 86_400_000 },
  ]);
  dir = await mkdtemp(path.join(tmpdir(), 'll-export-match-'));
}, 120_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('reports on the demo data', () => {
  it('has realistic demo data to check against', () => {
    expect(truth.spot.length).toBeGreaterThan(10_000);
    expect(truth.positions.length).toBeGreaterThan(1_000);
    expect(truth.transfers.length).toBeGreaterThan(1_000);
    expect(new Set(truth.spot.map((r) => r.spotTaxType)).size).toBe(81);
  });

  it('spot ledger: every record of the period, every field exact, with its category', async () => {
    for (const [from, to] of [
      ['2025-01-01', '2026-12-31'],
      ['2026-03-01', '2026-03-31'],
    ] as const) {
      const { header, rows, manifest } = await exportCsv('spot-ledger', from, to);
      const inPeriod = within(from, to);
      const expected = truth.spot
        .filter((r) => inPeriod(r.ts!))
        .sort((a, b) => Number(a.ts) - Number(b.ts) || byteCompare(a.id!, b.id!))
        .map((r) => [
          `spot:${r.id}`,
          isoUtc(r.ts!),
          isoLocal(r.ts!),
          r.ts,
          r.coin,
          r.spotTaxType,
          bookingOf(r.spotTaxType!).category,
          r.amount,
          r.fee,
          r.balance,
          r.bizOrderId ? `order:${r.bizOrderId}` : '',
          '',
        ]);
      expect(header[0]).toBe('record_id');
      expect(rows.length).toBeGreaterThan(0);
      expect(rows).toEqual(expected);
      expect(manifest.rowCount).toBe(expected.length);
    }
  });

  it('spot ledger: an unlisted spotTaxType is exported as unmapped and reported in the manifest', async () => {
    const { rows, manifest } = await exportCsv('spot-ledger', '2026-06-01', '2026-06-01');
    const row = rows.find((r) => r[5] === UNKNOWN_TYPE);
    expect(row?.[6]).toBe('unmapped');
    expect(row?.[7]).toBe('1.23450000');
    expect(manifest.unmapped).toEqual({ rows: 1, values: { [`spotTaxType=${UNKNOWN_TYPE}`]: 1 } });
  });

  it('futures P&L: one row per futures result of the futures ledger (transfers left out), every amount exact, the whole period', async () => {
    const { rows, manifest } = await exportCsv('futures-pnl', '2025-01-01', '2026-12-31', { account: futuresAccount });
    const categories = FUTURES_BOOKINGS as Readonly<Record<string, string>>;
    const ledger = futuresLedger;
    const expected = ledger
      .filter((r) => within('2025-01-01', '2026-12-31')(r.ts!) && categories[r.futureTaxType!] !== 'transfer')
      .sort((a, b) => Number(a.ts) - Number(b.ts) || byteCompare(a.id!, b.id!))
      .map((r) => {
        const category = categories[r.futureTaxType!] ?? 'unmapped';
        const amount = new Decimal(r.amount!);
        const zero = new Decimal(0);
        const pnl = category === 'realized-pnl' || category === 'liquidation' ? amount : zero;
        const fees = new Decimal(r.fee!).plus(category === 'fee' ? amount : zero);
        const funding = category === 'funding' ? amount : zero;
        return [
          `futures:${r.id}`,
          r.marginCoin,
          r.futureTaxType,
          category,
          pnl,
          fees,
          funding,
          amount.plus(r.fee!),
        ].map((v) => (v instanceof Decimal ? v.toFixed() : v));
      });
    expect(expected.length).toBeGreaterThan(1_000);
    expect(manifest.rowCount).toBe(expected.length);
    expect(manifest.partial).toBe(false);
    expect(
      rows.map((r) => [r[0], r[3], r[4], r[5], ...[r[7], r[8], r[9], r[11]].map((v) => new Decimal(v!).toFixed())]),
    ).toEqual(expected);
    // Every position's close is in the ledger, including those older than history-position's 3 months.
    const closes = rows.filter((r) => r[5] === 'realized-pnl' || r[5] === 'liquidation');
    expect(closes.length).toBe(
      truth.positions.filter((r) => within('2025-01-01', '2026-12-31')(r.utime ?? r.uTime!)).length,
    );
  });

  it('futures summary: totals per symbol and margin coin equal the exact sums of the futures-pnl rows', async () => {
    const from = '2025-01-01';
    const to = '2026-12-31';
    const summary = await exportCsv('futures-summary', from, to, { account: futuresAccount });
    const detail = await exportCsv('futures-pnl', from, to, { account: futuresAccount });
    const coins = new Set(detail.rows.map((r) => r[3]!));
    expect(summary.rows.filter((r) => r[0] === 'margin_coin_total').map((r) => r[1])).toEqual([...coins].sort());
    const check = (total: string[], mine: string[][]) => {
      expect(total[3]).toBe(String(mine.length));
      expect(total[4]).toBe(String(mine.filter((r) => r[5] === 'realized-pnl' || r[5] === 'liquidation').length));
      for (const [column, index] of [
        [5, 7],
        [6, 8],
        [7, 9],
        [8, 10],
        [9, 11],
      ] as const) {
        const sum = mine.reduce((acc, r) => acc.plus(r[index]!), new Decimal(0));
        expect(new Decimal(total[column]!).equals(sum), `${total[1]} ${total[2]} column ${column}`).toBe(true);
      }
    };
    for (const coin of coins) {
      check(
        summary.rows.find((r) => r[0] === 'margin_coin_total' && r[1] === coin)!,
        detail.rows.filter((r) => r[3] === coin),
      );
    }
    for (const row of summary.rows.filter((r) => r[0] === 'symbol')) {
      check(
        row,
        detail.rows.filter((r) => r[3] === row[1] && r[2] === row[2]),
      );
    }
  });

  it('broker transfers: final statuses by default, pending on request, every field exact', async () => {
    const from = '2025-01-01';
    const to = '2026-12-31';
    const expectedRows = (includePending: boolean) =>
      truth.transfers
        .filter((r) => within(from, to)(r.ts!) && (includePending || r.status !== 'pending'))
        .sort((a, b) => Number(a.ts) - Number(b.ts) || byteCompare(a.txId!, b.txId!) || byteCompare(a.type!, b.type!))
        .map((r) => [
          r.uid,
          `transfer:${r.txId}`,
          r.type,
          r.subType,
          r.coin,
          r.amount,
          r.status,
          isoUtc(r.ts!),
          isoLocal(r.ts!),
          r.ts,
          '',
        ]);
    const final = await exportCsv('broker-transfers', from, to);
    const all = await exportCsv('broker-transfers', from, to, { includePending: true });
    expect(truth.transfers.some((r) => r.status === 'pending')).toBe(true);
    expect(final.rows).toEqual(expectedRows(false));
    expect(all.rows).toEqual(expectedRows(true));
    expect(all.rows.length).toBeGreaterThan(final.rows.length);
  });

  it('Koinly and CoinTracking: every ledger record exactly once, amounts exact, net change per coin preserved', async () => {
    const from = '2025-01-01';
    const to = '2026-12-31';
    const koinly = await exportCsv('koinly', from, to);
    const coinTracking = await exportCsv('cointracking', from, to);
    const net = new Map<string, Decimal>();
    const add = (coin: string, value: Decimal) => net.set(coin, (net.get(coin) ?? new Decimal(0)).plus(value));
    expect(koinly.header.join(',')).toBe(
      'Date,Sent Amount,Sent Currency,Received Amount,Received Currency,Fee Amount,Fee Currency,Net Worth Amount,Net Worth Currency,Label,Description,TxHash',
    );
    const records = new Map(truth.spot.map((r) => [r.id!, r]));
    const seen = new Set<string>();
    const positions = new Map(truth.positions.map((r) => [`position:${r.positionId}`, r]));
    let pnlRows = 0;
    const feeRows = new Set<string>();
    const thirdFees = new Set<string>();
    for (const ct of coinTracking.rows) {
      const txId = ct[11]!;
      if (ct[8] === 'futures') {
        // A futures result: realized profit (Buy) or loss (Sell) in the margin coin.
        const funding = txId.endsWith(':funding');
        const position = positions.get(txId.replace(/:funding$/, ''))!;
        const value = funding
          ? new Decimal(position.totalFunding!)
          : new Decimal(position.pnl!).plus(position.openFee!).plus(position.closeFee!);
        const exact = (v: string | undefined) => (v ? new Decimal(v).toString() : v);
        expect([exact(ct[1]), ct[2], exact(ct[3]), ct[4]]).toEqual(
          value.isNegative()
            ? ['', '', value.neg().toString(), position.marginCoin]
            : [value.toString(), position.marginCoin, '', ''],
        );
        expect(ct[0]).toBe(value.isNegative() ? 'Derivatives / Futures Loss' : 'Derivatives / Futures Profit');
        if (!funding) pnlRows++;
        continue;
      }
      expect(ct[9]).toContain(txId);
      if (txId.endsWith(':fee')) {
        // The fee of a record bringing coins in: a cost row of its own, never on the deposit.
        const r = records.get(txId.slice('spot:'.length, -':fee'.length))!;
        expect(r.amount!.startsWith('-')).toBe(false);
        expect([ct[0], ct[3], ct[4], ct[5]]).toEqual(['Other Fee', abs(r.fee!), r.coin, '']);
        feeRows.add(r.id!);
        continue;
      }
      const ids = txId.split('+').map((id) => id.slice('spot:'.length));
      for (const id of ids) {
        expect(seen.has(id), `record ${id} twice`).toBe(false);
        seen.add(id);
      }
      if (ids.length > 1) continue;
      const r = records.get(ids[0]!)!;
      const labels = labelsOf(COINTRACKING_TYPES, r.spotTaxType!);
      expect(ct[10]).toBe(isoUtc(r.ts!).slice(0, 19).replace('T', ' '));
      const fee = new Decimal(r.fee!);
      if (r.amount!.startsWith('-')) {
        // CoinTracking's rule: the Sell amount includes the fee paid in that coin; the Fee column is information.
        const sell = new Decimal(r.amount!).neg().plus(fee.neg());
        expect([ct[0], new Decimal(ct[3]!).equals(sell), ct[4]]).toEqual([labels.out, true, r.coin]);
        expect([ct[5], ct[6]]).toEqual(fee.isZero() ? ['', ''] : [abs(r.fee!), r.coin]);
        if (r.spotTaxType === 'Transaction fee deduct' && r.bizOrderId) thirdFees.add(r.id!);
      } else if (!new Decimal(r.amount!).isZero()) {
        expect([ct[0], ct[1], ct[2], ct[5]]).toEqual([labels.in, r.amount, r.coin, '']);
      }
      // The Exchange column names the wallet (docs/reports.md, "Two wallets").
      expect(ct[7]).toBe(`${ACCOUNT_NAME} Spot`);
      expect(ct[8]).toBe(bookingOf(r.spotTaxType!).category);
    }
    // Koinly: the same entries, but a BGB fee of a trade goes on its trade's row (named there).
    const koinlyNamed = new Set<string>();
    const onTradeRows = new Set<string>();
    for (const row of koinly.rows) {
      for (const [, id] of row[10]!.matchAll(/spot:([^\s+,]+)/g)) koinlyNamed.add(id!);
      const onTrade = /, fee spot:(\S+)$/.exec(row[10]!);
      if (onTrade) onTradeRows.add(onTrade[1]!);
      // A fee in a third coin (neither side's) is a BGB fee record put on its trade's row.
      if (row[6] && row[6] !== row[2] && row[6] !== row[4]) expect(row[10]).toMatch(/, fee spot:\S+$/);
      const [, sent, sentCoin, received, receivedCoin, fee, feeCoin] = row;
      if (received) add(receivedCoin!, new Decimal(received));
      if (sent) add(sentCoin!, new Decimal(sent).neg());
      if (fee) add(feeCoin!, new Decimal(fee).neg());
    }
    expect(thirdFees.size).toBeGreaterThan(100);
    // Each one Koinly put on a trade row is a CoinTracking Other Fee row: Koinly's spot file has that
    // many rows fewer than CoinTracking's spot wallet (the futures wallet is Koinly's second file).
    expect([...onTradeRows].every((id) => thirdFees.has(id))).toBe(true);
    const ctSpotRows = coinTracking.rows.filter((r) => r[8] !== 'futures').length;
    expect(koinly.rows.length).toBe(ctSpotRows - onTradeRows.size);
    expect([...seen].every((id) => koinlyNamed.has(id))).toBe(true);
    expect(onTradeRows.size).toBeGreaterThan(100);
    // Moves between spot and futures are rows (the futures wallet is in the files too): every record
    // is in the file exactly once, nothing left out.
    const moves = truth.spot.filter((r) => r.spotTaxType === 'Transfer in' || r.spotTaxType === 'Transfer out');
    expect(moves.length).toBeGreaterThan(100);
    expect(moves.every((r) => seen.has(r.id!))).toBe(true);
    expect(seen.size).toBe(truth.spot.length);
    // Koinly rejects a deposit with a fee: every fee on coins coming in (outside paired trades) is its own row.
    const incomingFees = truth.spot.filter(
      (r) => !r.amount!.startsWith('-') && !new Decimal(r.amount!).isZero() && !new Decimal(r.fee!).isZero(),
    );
    expect(feeRows.size).toBeGreaterThan(0);
    expect([...feeRows].every((id) => incomingFees.some((r) => r.id === id))).toBe(true);
    expect(koinly.rows.filter((r) => r[3] !== '' && r[1] === '' && r[5] !== '')).toEqual([]);
    for (const manifest of [koinly.manifest, coinTracking.manifest]) {
      expect(manifest.omitted).toEqual({ rows: 0, values: {} });
    }
    // Bookings an accountant should confirm are written as booked and counted per type.
    const toReview = truth.spot.filter((r) => bookingOf(r.spotTaxType!).review !== undefined);
    const reviewCounts: Record<string, number> = {};
    for (const r of toReview) reviewCounts[r.spotTaxType!] = (reviewCounts[r.spotTaxType!] ?? 0) + 1;
    expect(koinly.manifest.review).toEqual({ rows: toReview.length, values: reviewCounts });
    expect(toReview.length).toBeGreaterThan(5);
    // One realized profit/loss row per closed position.
    expect(pnlRows).toBe(truth.positions.length);
    // Every trade of the simulator's orders pairs: both sides on one row, nothing left as a single leg.
    expect(koinly.rows.filter((r) => r[1] !== '' && r[3] !== '').length).toBeGreaterThanOrEqual(1_000);
    expect([koinly.manifest.unpairedLegs, coinTracking.manifest.unpairedLegs]).toEqual([0, 0]);
    expect(koinly.manifest.unmapped.rows).toBe(1);
    expect(coinTracking.manifest.unmapped.rows).toBe(1);
    const expectedNet = new Map<string, Decimal>();
    const expect_ = (coin: string, value: Decimal) =>
      expectedNet.set(coin, (expectedNet.get(coin) ?? new Decimal(0)).plus(value));
    // Koinly's spot file: every spot record; the futures results are its futures file's.
    for (const r of truth.spot) expect_(r.coin!, new Decimal(r.amount!).plus(r.fee!));
    for (const [coin, value] of expectedNet) expect(net.get(coin)?.equals(value), coin).toBe(true);
  });

  it('ten consecutive monthly Koinly and CoinTracking files hold every spot record exactly once, each row in the month of its earliest record', async () => {
    const records = new Map(truth.spot.map((r) => [r.id!, r]));
    const months = Array.from({ length: 10 }, (_, i) =>
      DateTime.fromISO('2025-12-01', { zone: TZ }).plus({ months: i }),
    );
    const spanStart = months[0]!.toMillis();
    const spanEnd = months[9]!.plus({ months: 1 }).toMillis();
    for (const [report, idColumn] of [
      ['koinly', -1],
      ['cointracking', 11],
    ] as const) {
      const named = new Map<string, string>();
      for (const month of months) {
        const from = month.toISODate()!;
        const to = month.endOf('month').toISODate()!;
        const { rows, manifest } = await exportCsv(report, from, to);
        expect(manifest.unpairedLegs, `${report} ${from}`).toBe(0);
        for (const row of rows) {
          // Koinly names a row's records in its Description (a BGB fee with its trade), CoinTracking in its Tx-ID.
          const text = idColumn === -1 ? row[10]! : row[idColumn]!;
          // Futures results, and the fee row of a record whose own row is counted: not spot records.
          if (text.includes('position:') || /spot:\S+:fee/.test(text)) continue;
          const ids = [...text.matchAll(/spot:([^\s+,]+)/g)].map((m) => m[1]!);
          for (const id of ids) {
            expect(named.get(id), `${report}: record ${id} in ${from} and in ${named.get(id)}`).toBeUndefined();
            named.set(id, from);
          }
          // The row lies in the month of its earliest record.
          const earliest = Math.min(...ids.map((id) => Number(records.get(id)!.ts)));
          expect(within(from, to)(String(earliest)), `${report} row ${ids.join('+')}`).toBe(true);
        }
      }
      // Every record of the ten months is in exactly one file, except the later legs of an order
      // that began before them; a record from outside them is a later leg of an order that began inside.
      const orderStart = new Map<string, number>();
      for (const r of truth.spot) {
        const ts = Number(r.ts);
        if (ts < (orderStart.get(r.bizOrderId!) ?? Infinity)) orderStart.set(r.bizOrderId!, ts);
      }
      for (const r of truth.spot) {
        const ts = Number(r.ts);
        const inSpan = ts >= spanStart && ts < spanEnd;
        const startedBefore = orderStart.get(r.bizOrderId!)! < spanStart;
        if (inSpan && !startedBefore) expect(named.has(r.id!), `${report}: record ${r.id} missing`).toBe(true);
        if (named.has(r.id!) && !inSpan) expect(ts).toBeGreaterThanOrEqual(spanEnd);
      }
      expect(named.size).toBeGreaterThan(5_000);
    }
  }, 120_000);
});
