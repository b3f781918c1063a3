import { Decimal } from 'decimal.js';
import type pg from 'pg';

import { toMs } from '../../db/sql-time.ts';
import { coveredRanges, type Range } from '../../ingest/coverage/coverage-summary.ts';
import { PRODUCT_TYPES } from '../../streams/positions/stream.ts';
import { streamDefinition, WALLET_LEDGERS } from '../../streams/registry.ts';
import { instant } from '../describe.ts';
import type { FuturesLedgerCheck, FuturesWalletReplay, TransferFinding } from '../report-types.ts';
import { pairedByWalletLedgerSql } from './wallet-ledger-check.ts';

/**
 * A spot transfer and its futures counterpart are written at the same instant (docs/exchange-api.md
 * §5.7); this much apart they still pair, in case the exchange books the two sides a moment apart.
 */
export const TRANSFER_PAIRING_TOLERANCE_MS = 60_000;

/** Findings listed per kind in the check's failures; the counts say how many in all. */
const LISTED = 50;

interface LedgerTransfer {
  side: 'spot' | 'futures';
  id: string;
  coin: string;
  /** + into the futures wallet (spot `Transfer out`, futures TRANSFER_IN), − out of it. */
  toFutures: Decimal;
  ts: number;
  productType?: string;
}

/**
 * Check 5, the futures ledger (docs/exchange-api.md §5.7, docs/reports.md "The futures ledger"):
 * - each futures wallet (productType, margin coin), replayed from its first stored record: its
 *   lowest running balance and its balance now (the exchange states no futures balance through
 *   its endpoints, so a dip below zero says only that the wallet held at least that much before
 *   its first stored record: a note, not a failure);
 * - every spot `Transfer in`/`Transfer out` that no wallet ledger (margin, P2P) pairs pairs with a futures TRANSFER_OUT/TRANSFER_IN of the
 *   same coin and amount at the same instant, and every futures transfer with its spot one, where
 *   both histories are covered. A transfer seen on one side only fails the check, naming it and,
 *   when one lies within the tolerance, the other side's nearest record of that coin. A futures
 *   transfer older than the account's first stored spot record cannot have come from the spot
 *   history (it funded the wallet from elsewhere): a note;
 * - every stored closed position whose close lies in the covered ledger ties to its close record
 *   (same symbol and `utime`, amount = pnl, fee = closeFee) and, when its open does too, to its open
 *   record (ctime, fee = openFee). Funding records carry no position id: they are not tied one by one.
 */
export async function checkFuturesLedger(pool: pg.Pool, accountId: string): Promise<FuturesLedgerCheck> {
  const coverage = new Map<string, Range[]>();
  for (const scope of PRODUCT_TYPES) {
    coverage.set(scope, await coveredRanges(pool, { accountId, stream: 'futures-ledger', scope }));
  }
  const spotCoverage = await coveredRanges(pool, { accountId, stream: 'spot', scope: '' });
  const wallets = await replayWallets(pool, accountId);
  const notes: string[] = [];
  for (const w of wallets.filter((x) => new Decimal(x.lowest).isNegative())) {
    notes.push(
      `${w.productType} ${w.marginCoin}: the replay from the first stored record (${w.firstRecordId}) reaches ` +
        `${w.lowest} at ${w.lowestRecordId}: the wallet held at least ${new Decimal(w.lowest).negated().toFixed()} ` +
        `before its first stored record`,
    );
  }
  const { findings, beforeSpot, paired } = await pairTransfers(pool, accountId, coverage, spotCoverage);
  if (beforeSpot.length > 0) {
    notes.push(
      `${beforeSpot.length} futures transfer(s) older than the first stored spot record (funded from outside ` +
        `the spot history): ${beforeSpot.slice(0, 10).join(', ')}`,
    );
  }
  const ties = await tiePositions(pool, accountId, coverage);
  const failures = [
    ...findings.slice(0, LISTED).map(describeFinding),
    ...(findings.length > LISTED ? [`... and ${findings.length - LISTED} more unpaired transfers`] : []),
    ...ties.untied.slice(0, LISTED),
    ...(ties.untied.length > LISTED ? [`... and ${ties.untied.length - LISTED} more untied positions`] : []),
  ];
  const records = wallets.reduce((sum, w) => sum + w.records, 0);
  return {
    name: 'futures-ledger',
    passed: findings.length === 0 && ties.untied.length === 0,
    examined:
      `${records} records of ${wallets.length} futures wallets; ${paired} spot<->futures transfers paired; ` +
      `${ties.tied} of ${ties.examined} closed positions tied to their records`,
    failures,
    notes,
    wallets,
    unpaired: findings,
    untiedPositions: ties.untied.length,
  };
}

async function replayWallets(pool: pg.Pool, accountId: string): Promise<FuturesWalletReplay[]> {
  const result = await pool.query<{
    product_type: string;
    margin_coin: string;
    records: string;
    balance: string;
    lowest: string;
    first_id: string;
    lowest_id: string;
  }>(
    `SELECT product_type::text, margin_coin, count(*)::text AS records,
            (array_agg(running ORDER BY ts DESC, record_id DESC))[1]::text AS balance,
            min(running)::text AS lowest,
            (array_agg(record_id ORDER BY ts, record_id))[1] AS first_id,
            (array_agg(record_id ORDER BY running, ts, record_id))[1] AS lowest_id
       FROM (SELECT product_type, margin_coin, ts, record_id,
                    sum(amount + fee) OVER (PARTITION BY product_type, margin_coin ORDER BY ts, record_id) AS running
               FROM futures_ledger_record WHERE account_id = $1) r
      GROUP BY product_type, margin_coin ORDER BY product_type, margin_coin`,
    [accountId],
  );
  return result.rows.map((r) => ({
    productType: r.product_type,
    marginCoin: r.margin_coin,
    records: Number(r.records),
    balance: new Decimal(r.balance).toFixed(),
    lowest: Decimal.min(new Decimal(r.lowest), 0).toFixed(),
    firstRecordId: r.first_id,
    lowestRecordId: r.lowest_id,
  }));
}

const inside = (ranges: readonly Range[] | undefined, ts: number) =>
  (ranges ?? []).some((r) => ts >= r.start && ts < r.end);

async function pairTransfers(
  pool: pg.Pool,
  accountId: string,
  coverage: Map<string, Range[]>,
  spotCoverage: Range[],
): Promise<{ findings: TransferFinding[]; beforeSpot: string[]; paired: number }> {
  const spot = await pool.query<{ id: string; coin: string; type: string; amount: string; ts: string }>(
    `SELECT record_id AS id, coin, spot_tax_type AS type, amount::text, ${toMs('ts')} AS ts FROM spot_record s
      WHERE account_id = $1 AND spot_tax_type IN ('Transfer in', 'Transfer out')
        ${WALLET_LEDGERS.length > 0 ? `AND NOT (${pairedByWalletLedgerSql(WALLET_LEDGERS)})` : ''}`,
    [accountId],
  );
  const futures = await pool.query<{ id: string; coin: string; amount: string; ts: string; product_type: string }>(
    `SELECT record_id AS id, margin_coin AS coin, (amount + fee)::text AS amount, ${toMs('ts')} AS ts,
            product_type::text FROM futures_ledger_record
      WHERE account_id = $1 AND future_tax_type IN ('TRANSFER_IN', 'TRANSFER_OUT')`,
    [accountId],
  );
  const firstSpot = await pool.query<{ ts: string | null }>(
    `SELECT ${toMs('min(ts)')} AS ts FROM spot_record WHERE account_id = $1`,
    [accountId],
  );
  const spotStart = firstSpot.rows[0]?.ts == null ? Infinity : Number(firstSpot.rows[0].ts);
  // A futures wallet of any product type may hold the coin: the spot side is covered where every product type is.
  const futuresCovered = (ts: number) => PRODUCT_TYPES.every((scope) => inside(coverage.get(scope), ts));
  // A spot transfer may be the other side of a margin or P2P transfer instead (those paired are left
  // out above): it is expected on the futures side only where those ledgers are covered too.
  const walletCoverage = await Promise.all(
    WALLET_LEDGERS.flatMap((stream) =>
      streamDefinition(stream).scopes.map((scope) => coveredRanges(pool, { accountId, stream, scope })),
    ),
  );
  const both = (ts: number) =>
    inside(spotCoverage, ts) && futuresCovered(ts) && walletCoverage.every((ranges) => inside(ranges, ts));
  const spotSide: LedgerTransfer[] = spot.rows
    .map((r) => ({
      side: 'spot' as const,
      id: r.id,
      coin: r.coin,
      toFutures: new Decimal(r.amount).negated(),
      ts: Number(r.ts),
    }))
    .filter((t) => both(t.ts));
  const beforeSpot: string[] = [];
  const futuresSide: LedgerTransfer[] = [];
  for (const r of futures.rows) {
    const ts = Number(r.ts);
    if (!inside(spotCoverage, ts) || !inside(coverage.get(r.product_type), ts)) continue;
    if (ts < spotStart) beforeSpot.push(r.id);
    else
      futuresSide.push({
        side: 'futures',
        id: r.id,
        coin: r.coin,
        toFutures: new Decimal(r.amount),
        ts,
        productType: r.product_type,
      });
  }
  const key = (t: LedgerTransfer) => `${t.coin}|${t.toFutures.toFixed()}`;
  const open = new Map<string, LedgerTransfer[]>();
  for (const t of futuresSide) open.set(key(t), [...(open.get(key(t)) ?? []), t]);
  const unpairedSpot: LedgerTransfer[] = [];
  let paired = 0;
  for (const t of spotSide) {
    const candidates = open.get(key(t)) ?? [];
    const at = candidates.findIndex((c) => Math.abs(c.ts - t.ts) <= TRANSFER_PAIRING_TOLERANCE_MS);
    if (at < 0) unpairedSpot.push(t);
    else {
      candidates.splice(at, 1);
      paired++;
    }
  }
  const unpairedFutures = [...open.values()].flat();
  const nearest = (t: LedgerTransfer, others: LedgerTransfer[]) =>
    others
      .filter((o) => o.coin === t.coin && Math.abs(o.ts - t.ts) <= TRANSFER_PAIRING_TOLERANCE_MS)
      .sort((a, b) => Math.abs(a.ts - t.ts) - Math.abs(b.ts - t.ts))[0];
  const findings: TransferFinding[] = [];
  const named = new Set<string>();
  for (const t of [...unpairedSpot, ...unpairedFutures]) {
    if (named.has(`${t.side}:${t.id}`)) continue;
    const other = nearest(t, t.side === 'spot' ? unpairedFutures : unpairedSpot);
    if (other) named.add(`${other.side}:${other.id}`);
    const spotOne = t.side === 'spot' ? t : other;
    const futuresOne = t.side === 'futures' ? t : other;
    findings.push({
      coin: t.coin,
      ts: t.ts,
      spotRecordId: spotOne?.id ?? null,
      spotAmount: spotOne ? spotOne.toFutures.negated().toFixed() : null,
      futuresRecordId: futuresOne?.id ?? null,
      futuresAmount: futuresOne ? futuresOne.toFutures.toFixed() : null,
    });
  }
  findings.sort((a, b) => a.ts - b.ts);
  return { findings, beforeSpot, paired };
}

function describeFinding(f: TransferFinding): string {
  const at = `${f.coin} transfer at ${instant(f.ts)}`;
  if (f.spotRecordId !== null && f.futuresRecordId !== null) {
    return `${at}: spot record ${f.spotRecordId} (${f.spotAmount}) and futures record ${f.futuresRecordId} (${f.futuresAmount}) do not match`;
  }
  if (f.spotRecordId !== null) {
    return `${at}: spot record ${f.spotRecordId} (${f.spotAmount}) has no futures counterpart (futures record: none)`;
  }
  return `${at}: futures record ${f.futuresRecordId} (${f.futuresAmount}) has no spot counterpart (spot record: none)`;
}

async function tiePositions(
  pool: pg.Pool,
  accountId: string,
  coverage: Map<string, Range[]>,
): Promise<{ examined: number; tied: number; untied: string[] }> {
  const positions = await pool.query<{
    id: string;
    product_type: string;
    symbol: string;
    side: string;
    pnl: string;
    open_fee: string;
    close_fee: string;
    ctime: string;
    utime: string;
  }>(
    `SELECT position_id AS id, product_type::text, symbol, hold_side::text AS side, pnl::text, open_fee::text,
            close_fee::text, ${toMs('created_time')} AS ctime, ${toMs('updated_time')} AS utime
       FROM futures_position WHERE account_id = $1`,
    [accountId],
  );
  const records = await pool.query<{ symbol: string; type: string; amount: string; fee: string; ts: string }>(
    `SELECT symbol, future_tax_type AS type, amount::text, fee::text, ${toMs('ts')} AS ts FROM futures_ledger_record
      WHERE account_id = $1 AND (future_tax_type LIKE 'OPEN\\_%' OR future_tax_type LIKE '%CLOSE\\_%')`,
    [accountId],
  );
  const byKey = new Map<string, { type: string; amount: Decimal; fee: Decimal }[]>();
  for (const r of records.rows) {
    const key = `${r.symbol}|${r.ts}`;
    byKey.set(key, [
      ...(byKey.get(key) ?? []),
      { type: r.type, amount: new Decimal(r.amount), fee: new Decimal(r.fee) },
    ]);
  }
  let examined = 0;
  let tied = 0;
  const untied: string[] = [];
  for (const p of positions.rows) {
    const ranges = coverage.get(p.product_type);
    if (!inside(ranges, Number(p.utime))) continue;
    examined++;
    const side = p.side === 'long' ? 'LONG' : 'SHORT';
    const close = (byKey.get(`${p.symbol}|${p.utime}`) ?? []).find(
      (r) => r.type.endsWith(`CLOSE_${side}`) && r.amount.eq(p.pnl) && r.fee.eq(p.close_fee),
    );
    const openCovered = inside(ranges, Number(p.ctime));
    const open = (byKey.get(`${p.symbol}|${p.ctime}`) ?? []).find(
      (r) => r.type === `OPEN_${side}` && r.fee.eq(p.open_fee),
    );
    if (close && (!openCovered || open)) tied++;
    else {
      const missing = [
        close ? null : `close (CLOSE_${side} at ${instant(Number(p.utime))}, pnl ${p.pnl}, fee ${p.close_fee})`,
        openCovered && !open ? `open (OPEN_${side} at ${instant(Number(p.ctime))}, fee ${p.open_fee})` : null,
      ].filter(Boolean);
      untied.push(`position ${p.id} (${p.symbol} ${p.side}): no ledger record for its ${missing.join(' and ')}`);
    }
  }
  return { examined, tied, untied };
}
