import { streamDefinition, WALLET_LEDGERS, walletFacts } from '../streams/registry.ts';
import { REVIEW_PREFIX, UNPAIRED_LEG } from './entry-flags.ts';
import { byteOrder } from './sql-fragments.ts';
import type { SqlParams } from './sql-params.ts';
import { ID_KINDS } from './text-safe-ids.ts';

/** The manifest's name of a type column's unknown value, as the exchange names the field (marginTaxType=...). */
const fieldName = (column: string) => column.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * The CTEs of every wallet ledger's entries (margin, P2P), placed after the futures CTEs
 * (ledger-entries.ts: they pair with its `spot_moves`). Per ledger, named by its label:
 *   <label>_legs        the period's records: scope, coin, type, change, amount and fee (the
 *                       exchange's own columns when it sends the fee apart, else change and 0),
 *                       treatment (the declaration's kind; null for a type it does not list)
 *   <label>_trade_legs  the records of its `tradeLegs` types, numbered per (scope, instant, kind of
 *                       trade, side) in record id order
 *   <label>_trades      the k-th leg given with the k-th received of another coin, same kind: one trade
 *   <label>_pairs       each transfer with its spot `Transfer out`/`Transfer in`: same coin, same
 *                       instant, opposite change, the k-th of a (coin, instant, change) on each side
 * Every value comes from the ledger's declared wallet facts: adding a wallet ledger adds its entries.
 */
export function walletLedgerCtes(p: SqlParams, account: string, start: string, end: string): string {
  return WALLET_LEDGERS.map((stream) => {
    const facts = walletFacts(stream);
    const definition = streamDefinition(stream);
    const w = facts.label;
    const scope = definition.scopeColumn ? `${definition.scopeColumn.name}::text` : `''`;
    const amount = facts.amountAndFee?.amount ?? `(${facts.change})`;
    const fee = facts.amountAndFee?.fee ?? '0';
    const entries = Object.entries(facts.treatments);
    const types = p.add(
      entries.map(([type]) => type),
      'text[]',
    );
    const treatments = p.add(
      entries.map(([, treatment]) => treatment.kind),
      'text[]',
    );
    const kinds = (facts.tradeLegs ?? []).map(
      (legTypes, i) => `WHEN type = ANY(${p.add(legTypes, 'text[]')}) THEN ${i}`,
    );
    const kind = kinds.length > 0 ? `CASE ${kinds.join(' ')} END` : 'NULL::integer';
    const transfers = p.add([facts.transferIn, facts.transferOut], 'text[]');
    const order = `length(record_id), ${byteOrder('record_id')}`;
    return `${w}_legs AS MATERIALIZED (
      SELECT record_id, ts, ${scope} AS scope, ${facts.coin} AS coin, ${facts.type} AS type,
             (${facts.change}) AS change, ${fee} AS fee, ${amount} AS amount,
             (${treatments})[array_position(${types}, ${facts.type})] AS treatment
      FROM ${definition.table.table}
      WHERE account_id = ${account} AND ts >= ${start} AND ts < ${end}
    ),
    ${w}_trade_legs AS MATERIALIZED (
      SELECT *, row_number() OVER (PARTITION BY scope, ts, kind, change < 0 ORDER BY ${order}) AS k
      FROM (SELECT *, ${kind} AS kind FROM ${w}_legs) l WHERE kind IS NOT NULL AND change <> 0
    ),
    ${w}_trades AS MATERIALIZED (
      SELECT g.ts, g.scope, g.record_id AS given_id, g.coin AS given_coin, g.amount AS given, g.fee AS given_fee,
             g.type AS given_type, r.record_id AS received_id, r.coin AS received_coin, r.amount AS received,
             r.fee AS received_fee, r.type AS received_type
      FROM ${w}_trade_legs g
      JOIN ${w}_trade_legs r
        ON r.scope = g.scope AND r.ts = g.ts AND r.kind = g.kind AND r.k = g.k AND r.change > 0 AND r.coin <> g.coin
      WHERE g.change < 0
    ),
    ${w}_moves AS MATERIALIZED (
      SELECT record_id, coin, ts, change, row_number() OVER (PARTITION BY coin, ts, change ORDER BY ${order}) AS k
      FROM ${w}_legs WHERE type = ANY(${transfers})
    ),
    ${w}_pairs AS MATERIALIZED (
      SELECT m.record_id, s.record_id AS spot_id
      FROM ${w}_moves m JOIN spot_moves s ON s.coin = m.coin AND s.ts = m.ts AND s.change = -m.change AND s.k = m.k
    )`;
  }).join(',\n    ');
}

/**
 * Every wallet ledger's entries, in the columns of `all_entries` (ledger-entries.ts), wallet = its
 * label (docs/reports.md, "Margin and P2P wallets"):
 * - a trade (two legs paired in `<label>_trades`): `trade`, Sent the given leg, Received the
 *   received one; the received leg's fee in the fee column, else the given leg's; both: the given
 *   leg's fee added to Sent (as spot's trades); row id the given leg's;
 * - any other record: `wallet-in` / `wallet-out` by its amount's sign, labelled by its treatment
 *   (`category`); Sent = −amount with its fee in the fee column, or Received = amount with its
 *   fee a `fee` row of its own (`<label>:<id>:fee`: Koinly rejects a deposit with a fee); a
 *   record moving only its fee a `fee` row; a transfer paired with spot carries the spot record's
 *   id in pair_id (Koinly's transfer matching wants the same TxHash on both sides);
 * - flags: an unlisted type `<typeField>=<type>`, a trade leg left unpaired `unpaired-leg`, a
 *   type whose treatment says `review` is flagged `review:<type>` (the manifest's `review` counts it per type, as spot's:
 *   `confiscated`, `buy`; the gains reports read the same flags).
 * Sort ids are the file form (`margin:<id>`), so that no entry ties with a spot record of the same
 * digits (a transfer's two sides share their instant and, in the simulator, their digits).
 * `spot_types` starts with the record's own type (the gains walk's entry-treatment.ts reads it).
 * Signs: change = amount + fee, fee ≤ 0, as the ledger's declaration computes them.
 */
export function walletLedgerEntries(): string {
  return WALLET_LEDGERS.map((stream) => {
    const facts = walletFacts(stream);
    const w = facts.label;
    const id = (column: string) => `'${w}:' || ${column}`;
    const reviewed =
      Object.entries(facts.treatments)
        .filter(([, treatment]) => treatment.review === true)
        .map(([type]) => `'${type.replace(/'/g, "''")}'`)
        .join(', ') || 'NULL';
    const describe = (alias: string) => `trim(${alias}.type || ' ' || ${alias}.scope)`;
    return `SELECT t.ts, ${byteOrder(id('t.given_id'))},
             CASE WHEN t.given_fee <> 0 AND t.received_fee <> 0 THEN -t.given - t.given_fee ELSE -t.given END,
             t.given_coin, t.received, t.received_coin,
             CASE WHEN t.received_fee <> 0 THEN -t.received_fee WHEN t.given_fee <> 0 THEN -t.given_fee END,
             CASE WHEN t.received_fee <> 0 THEN t.received_coin WHEN t.given_fee <> 0 THEN t.given_coin END,
             'trade', NULL::integer, 'trade',
             trim(t.given_type || ' / ' || t.received_type || ' ' || t.scope)
               || CASE WHEN t.given_fee <> 0 AND t.received_fee <> 0
                       THEN ' (sent includes its fee ' || (-t.given_fee)::text || ')' ELSE '' END,
             ${id('t.given_id')} || '+' || ${id('t.received_id')}, '', NULL::text,
             ${id('t.given_id')}, NULL::numeric, NULL::text, NULL::text, false, '${w}', NULL::text
      FROM ${w}_trades t
      UNION ALL
      SELECT l.ts, ${byteOrder(id('l.record_id'))},
             CASE WHEN l.amount < 0 THEN -l.amount WHEN l.amount = 0 AND l.fee <> 0 THEN -l.fee END,
             CASE WHEN l.amount < 0 OR (l.amount = 0 AND l.fee <> 0) THEN l.coin END,
             CASE WHEN l.amount > 0 OR (l.amount = 0 AND l.fee = 0) THEN l.amount END,
             CASE WHEN l.amount > 0 OR (l.amount = 0 AND l.fee = 0) THEN l.coin END,
             CASE WHEN l.amount < 0 AND l.fee <> 0 THEN -l.fee END,
             CASE WHEN l.amount < 0 AND l.fee <> 0 THEN l.coin END,
             CASE WHEN l.amount > 0 THEN 'wallet-in' WHEN l.amount < 0 THEN 'wallet-out'
                  WHEN l.fee <> 0 THEN 'fee' ELSE 'none' END,
             NULL::integer, coalesce(l.treatment, 'unmapped'), ${describe('l')}, ${id('l.record_id')}, '',
             CASE WHEN l.treatment IS NULL THEN '${fieldName(facts.type)}=' || l.type
                  WHEN l.record_id IN (SELECT record_id FROM ${w}_trade_legs) THEN '${UNPAIRED_LEG}'
                  WHEN l.type IN (${reviewed}) THEN '${REVIEW_PREFIX}' || l.type END,
             ${id('l.record_id')}, NULL::numeric, NULL::text, NULL::text, false, '${w}',
             CASE WHEN p.spot_id IS NOT NULL THEN '${ID_KINDS.spot}' || p.spot_id END
      FROM ${w}_legs l LEFT JOIN ${w}_pairs p USING (record_id)
      WHERE l.record_id NOT IN (SELECT given_id FROM ${w}_trades UNION ALL SELECT received_id FROM ${w}_trades)
      UNION ALL
      SELECT l.ts, ${byteOrder(`${id('l.record_id')} || ':fee'`)}, -l.fee, l.coin, NULL, NULL, NULL, NULL, 'fee', NULL,
             coalesce(l.treatment, 'unmapped'), ${describe('l')} || ' fee', ${id('l.record_id')} || ':fee', '',
             NULL, ${id('l.record_id')} || ':fee', NULL, NULL, NULL, false, '${w}', NULL
      FROM ${w}_legs l
      WHERE l.amount > 0 AND l.fee <> 0
        AND l.record_id NOT IN (SELECT given_id FROM ${w}_trades UNION ALL SELECT received_id FROM ${w}_trades)`;
  }).join('\n      UNION ALL\n      ');
}
