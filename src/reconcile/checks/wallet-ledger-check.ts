import { Decimal } from 'decimal.js';
import type pg from 'pg';

import { toMs } from '../../db/sql-time.ts';
import { coveredRanges, type Range } from '../../ingest/coverage/coverage-summary.ts';
import { streamDefinition, walletFacts, type WalletLedger } from '../../streams/registry.ts';
import { instant } from '../describe.ts';
import type { TotalBreak, UnpairedWalletTransfer, WalletLedgerCheck, WalletReplay } from '../report-types.ts';
import { TRANSFER_PAIRING_TOLERANCE_MS } from './futures-ledger-check.ts';

/** Findings listed per kind in the check's failures; the counts say how many in all. */
const LISTED = 50;

/**
 * The check of one wallet ledger (margin, P2P), from the stream's declared wallet facts:
 * - each wallet (scope, coin) replayed from its first stored record; where the exchange sends
 *   the running total (margin's `total`), every record's total must be its predecessor's plus
 *   its change, like spot's balance chain: a record deleted between two stored ones, or a wrong
 *   total, is a break naming both records (unless the stretch between them was never read);
 * - every transfer in or out of the wallet pairs with a spot `Transfer out`/`Transfer in` of the
 *   same coin and amount at the same instant, where both histories are covered; an unpaired one
 *   fails the check, naming it and the nearest spot transfer of the coin, if any.
 * The spot side (every spot transfer has its other side in some wallet) is the futures-ledger
 * check's, which leaves out the spot transfers a wallet ledger pairs.
 */
export async function checkWalletLedger(
  pool: pg.Pool,
  accountId: string,
  stream: WalletLedger,
): Promise<WalletLedgerCheck> {
  const definition = streamDefinition(stream);
  const coverage = new Map<string, Range[]>();
  for (const scope of definition.scopes) coverage.set(scope, await coveredRanges(pool, { accountId, stream, scope }));
  const spotCoverage = await coveredRanges(pool, { accountId, stream: 'spot', scope: '' });
  const wallets = await replay(pool, accountId, stream);
  const breaks = await totalBreaks(pool, accountId, stream, coverage);
  const { unpaired, paired } = await pairWithSpot(pool, accountId, stream, coverage, spotCoverage);
  const notes = wallets
    .filter((w) => new Decimal(w.lowest).isNegative())
    .map(
      (w) =>
        `${walletName(w)}: the replay from the first stored record reaches ${w.lowest}: the wallet held at least ` +
        `${new Decimal(w.lowest).negated().toFixed()} before its first stored record`,
    );
  const failures = [
    ...breaks
      .slice(0, LISTED)
      .map(
        (b) =>
          `${walletName(b)}: record ${b.recordId} at ${instant(b.ts)} has total ${b.stored}, expected ${b.expected} ` +
          `after record ${b.previousRecordId}: a record between them is missing, or its total is wrong`,
      ),
    ...(breaks.length > LISTED ? [`... and ${breaks.length - LISTED} more breaks`] : []),
    ...unpaired
      .slice(0, LISTED)
      .map(
        (u) =>
          `${walletName(u)}: ${u.type} ${u.recordId} (${u.change}) at ${instant(u.ts)} has no spot ` +
          `${u.type === walletFacts(stream).transferIn ? 'Transfer out' : 'Transfer in'} of the same amount` +
          (u.nearestSpotRecordId ? ` (nearest spot transfer of ${u.coin}: ${u.nearestSpotRecordId})` : ''),
      ),
    ...(unpaired.length > LISTED ? [`... and ${unpaired.length - LISTED} more unpaired transfers`] : []),
  ];
  const records = wallets.reduce((sum, w) => sum + w.records, 0);
  return {
    name: stream,
    passed: breaks.length === 0 && unpaired.length === 0,
    examined: `${records} records of ${wallets.length} wallets; ${paired} transfers paired with spot`,
    failures,
    notes,
    wallets,
    breaks,
    unpaired,
  };
}

const walletName = (w: { scope: string; coin: string }) => (w.scope ? `${w.scope} ${w.coin}` : w.coin);

const inside = (ranges: readonly Range[] | undefined, ts: number) =>
  (ranges ?? []).some((r) => ts >= r.start && ts < r.end);

/** Both instants in one covered stretch: nothing between them went unread. */
const sameStretch = (ranges: readonly Range[] | undefined, a: number, b: number) =>
  (ranges ?? []).some((r) => a >= r.start && b < r.end);

/** The ledger's rows as (scope, coin, id, ts, change, total), from its declaration. */
function walletRows(stream: WalletLedger): string {
  const definition = streamDefinition(stream);
  const facts = walletFacts(stream);
  const scope = definition.scopeColumn ? `${definition.scopeColumn.name}::text` : `''`;
  return `SELECT ${scope} AS scope, ${facts.coin} AS coin, record_id, ts, ${facts.type} AS type,
                 (${facts.change}) AS change, ${facts.runningTotal ?? 'NULL::numeric'} AS total
            FROM ${definition.table.table} WHERE account_id = $1`;
}

/** Records of one wallet in the order the exchange wrote them (ids are decimal strings: shorter is smaller). */
const WALLET_ORDER = 'PARTITION BY scope, coin ORDER BY ts, length(record_id), record_id';

async function replay(pool: pg.Pool, accountId: string, stream: WalletLedger): Promise<WalletReplay[]> {
  const result = await pool.query<{
    scope: string;
    coin: string;
    records: string;
    balance: string;
    lowest: string;
  }>(
    `SELECT scope, coin, count(*)::text AS records,
            (array_agg(coalesce(total, running) ORDER BY ts DESC, length(record_id) DESC, record_id DESC))[1]::text
              AS balance,
            min(running)::text AS lowest
       FROM (SELECT *, sum(change) OVER (${WALLET_ORDER}) AS running FROM (${walletRows(stream)}) w) r
      GROUP BY scope, coin ORDER BY scope, coin`,
    [accountId],
  );
  return result.rows.map((r) => ({
    scope: r.scope,
    coin: r.coin,
    records: Number(r.records),
    balance: new Decimal(r.balance).toFixed(),
    lowest: Decimal.min(new Decimal(r.lowest), 0).toFixed(),
  }));
}

async function totalBreaks(
  pool: pg.Pool,
  accountId: string,
  stream: WalletLedger,
  coverage: Map<string, Range[]>,
): Promise<TotalBreak[]> {
  if (walletFacts(stream).runningTotal === undefined) return [];
  const result = await pool.query<{
    scope: string;
    coin: string;
    record_id: string;
    previous_id: string;
    ts: string;
    previous_ts: string;
    expected: string;
    stored: string;
  }>(
    `SELECT scope, coin, record_id, previous_id, ${toMs('ts')} AS ts, ${toMs('previous_ts')} AS previous_ts,
            (previous_total + change)::text AS expected, total::text AS stored
       FROM (SELECT *, lag(total) OVER (${WALLET_ORDER}) AS previous_total,
                    lag(record_id) OVER (${WALLET_ORDER}) AS previous_id,
                    lag(ts) OVER (${WALLET_ORDER}) AS previous_ts
               FROM (${walletRows(stream)}) w) r
      WHERE previous_id IS NOT NULL AND previous_total + change <> total
      ORDER BY ts, length(record_id), record_id`,
    [accountId],
  );
  return result.rows
    .filter((r) => sameStretch(coverage.get(r.scope), Number(r.previous_ts), Number(r.ts)))
    .map((r) => ({
      scope: r.scope,
      coin: r.coin,
      recordId: r.record_id,
      previousRecordId: r.previous_id,
      ts: Number(r.ts),
      expected: new Decimal(r.expected).toFixed(),
      stored: new Decimal(r.stored).toFixed(),
    }));
}

async function pairWithSpot(
  pool: pg.Pool,
  accountId: string,
  stream: WalletLedger,
  coverage: Map<string, Range[]>,
  spotCoverage: Range[],
): Promise<{ unpaired: UnpairedWalletTransfer[]; paired: number }> {
  const facts = walletFacts(stream);
  const transfers = await pool.query<{
    scope: string;
    coin: string;
    record_id: string;
    type: string;
    change: string;
    ts: string;
  }>(
    `SELECT scope, coin, record_id, type, change::text, ${toMs('ts')} AS ts FROM (${walletRows(stream)}) w
      WHERE type IN ($2, $3) ORDER BY ts, length(record_id), record_id`,
    [accountId, facts.transferIn, facts.transferOut],
  );
  const spot = await pool.query<{ id: string; coin: string; amount: string; ts: string }>(
    `SELECT record_id AS id, coin, amount::text, ${toMs('ts')} AS ts FROM spot_record
      WHERE account_id = $1 AND spot_tax_type IN ('Transfer in', 'Transfer out')`,
    [accountId],
  );
  // A spot record pairs once: by coin and the amount it moves into the wallet (− of spot's amount).
  const open = new Map<string, { id: string; ts: number }[]>();
  const byCoin = new Map<string, { id: string; ts: number }[]>();
  for (const s of spot.rows) {
    const key = `${s.coin}|${new Decimal(s.amount).negated().toFixed()}`;
    open.set(key, [...(open.get(key) ?? []), { id: s.id, ts: Number(s.ts) }]);
    byCoin.set(s.coin, [...(byCoin.get(s.coin) ?? []), { id: s.id, ts: Number(s.ts) }]);
  }
  const unpaired: UnpairedWalletTransfer[] = [];
  let paired = 0;
  for (const t of transfers.rows) {
    const ts = Number(t.ts);
    if (!inside(spotCoverage, ts) || !inside(coverage.get(t.scope), ts)) continue;
    const candidates = open.get(`${t.coin}|${new Decimal(t.change).toFixed()}`) ?? [];
    const at = candidates.findIndex((c) => Math.abs(c.ts - ts) <= TRANSFER_PAIRING_TOLERANCE_MS);
    if (at >= 0) {
      candidates.splice(at, 1);
      paired++;
      continue;
    }
    const nearest = (byCoin.get(t.coin) ?? [])
      .filter((c) => Math.abs(c.ts - ts) <= TRANSFER_PAIRING_TOLERANCE_MS)
      .sort((a, b) => Math.abs(a.ts - ts) - Math.abs(b.ts - ts))[0];
    unpaired.push({
      scope: t.scope,
      coin: t.coin,
      recordId: t.record_id,
      type: t.type,
      change: new Decimal(t.change).toFixed(),
      ts,
      nearestSpotRecordId: nearest?.id ?? null,
    });
  }
  return { unpaired, paired };
}

/**
 * SQL (a condition over spot_record `s`): the spot transfer is the other side of a transfer of
 * some wallet ledger, same coin and amount within the tolerance. The futures-ledger check leaves
 * those out of the spot transfers it expects on the futures side.
 */
export function pairedByWalletLedgerSql(streams: readonly WalletLedger[]): string {
  return streams
    .map((stream) => {
      const facts = walletFacts(stream);
      return `EXISTS (SELECT 1 FROM ${streamDefinition(stream).table.table} w
                       WHERE w.account_id = s.account_id AND w.${facts.coin} = s.coin
                         AND w.${facts.type} IN ('${facts.transferIn}', '${facts.transferOut}')
                         AND (${facts.change}) = -s.amount
                         AND w.ts BETWEEN s.ts - interval '${TRANSFER_PAIRING_TOLERANCE_MS} milliseconds'
                                      AND s.ts + interval '${TRANSFER_PAIRING_TOLERANCE_MS} milliseconds')`;
    })
    .join(' OR ');
}
