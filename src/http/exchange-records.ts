import type pg from 'pg';

import type { RulesMethod } from '../accounting/gains/gains-method.ts';
import { ID_KINDS, type IdKind, idPrefix } from '../booking/text-safe-ids.ts';
import { type Html, html } from './html.ts';
import { scopeWords } from './plain-words.ts';
import { recordTimeWords } from './tax-year-words.ts';

/**
 * The exchange's records behind a row of a report: a row names them as the files do
 * (text-safe-ids.ts: `spot:1764424520263000`, a trade's legs joined by `+`, records apart by a
 * space); here each is read back from its table and shown with the id as the exchange gives it.
 */
export interface ExchangeRecord {
  /** As the report names it: `spot:1764424520263000`. */
  readonly ref: string;
  /** The history it is from, in words. */
  readonly ledger: string;
  /** The id as the exchange gives it (no prefix). */
  readonly id: string;
  readonly atMs: number;
  /** The exchange's type of the record (its taxType, or a position's side). */
  readonly type: string;
  readonly coin: string;
  readonly amount: string;
  readonly fee: string;
  /** What else places it: the market, the product type, the margin mode. */
  readonly detail: Html | string;
}

interface Source {
  readonly ledger: string;
  readonly sql: string;
  readonly detail: (row: Row) => Html | string;
}

interface Row {
  id: string;
  ms: string;
  type: string;
  coin: string;
  amount: string;
  fee: string;
  detail: string;
}

const MS = `(extract(epoch FROM ts) * 1000)::bigint::text AS ms`;

/** One query per kind of id, all answering the same columns (Row). */
const SOURCES: Readonly<Partial<Record<IdKind, Source>>> = {
  spot: {
    ledger: 'Spot record',
    sql: `SELECT record_id AS id, ${MS}, spot_tax_type AS type, coin, amount::text, fee::text,
            coalesce(biz_order_id, '') AS detail
            FROM spot_record WHERE account_id = $1::uuid AND record_id = ANY($2::text[])`,
    detail: (r) => (r.detail ? `order ${r.detail}` : ''),
  },
  futures: {
    ledger: 'Futures ledger',
    sql: `SELECT record_id AS id, ${MS}, future_tax_type AS type, margin_coin AS coin, amount::text, fee::text,
            product_type::text || ' ' || coalesce(symbol, '') AS detail
            FROM futures_ledger_record WHERE account_id = $1::uuid AND record_id = ANY($2::text[])`,
    detail: (r) => {
      const [productType, symbol] = r.detail.split(' ');
      return html`${symbol ?? ''} (${scopeWords(productType!)})`;
    },
  },
  position: {
    ledger: 'Closed futures position',
    sql: `SELECT position_id AS id, (extract(epoch FROM updated_time) * 1000)::bigint::text AS ms,
            hold_side::text AS type, margin_coin AS coin, net_profit::text AS amount,
            (coalesce(open_fee, 0) + coalesce(close_fee, 0))::text AS fee, product_type::text || ' ' || symbol AS detail
            FROM futures_position WHERE account_id = $1::uuid AND position_id = ANY($2::text[])`,
    detail: (r) => {
      const [productType, symbol] = r.detail.split(' ');
      return html`${symbol ?? ''} (${scopeWords(productType!)})`;
    },
  },
  margin: {
    ledger: 'Margin ledger',
    sql: `SELECT record_id AS id, ${MS}, margin_tax_type AS type, coin, amount::text, fee::text,
            margin_type || ' ' || coalesce(symbol, '') AS detail
            FROM margin_ledger_record WHERE account_id = $1::uuid AND record_id = ANY($2::text[])`,
    detail: (r) => r.detail.trim(),
  },
  p2p: {
    ledger: 'P2P ledger',
    sql: `SELECT record_id AS id, ${MS}, p2p_tax_type AS type, coin, total::text AS amount, '0' AS fee, '' AS detail
            FROM p2p_ledger_record WHERE account_id = $1::uuid AND record_id = ANY($2::text[])`,
    detail: () => '',
  },
  transfer: {
    ledger: 'Sub-account transfer',
    sql: `SELECT tx_id AS id, ${MS}, type, coin, amount::text, '0' AS fee, sub_uid AS detail
            FROM broker_transfer WHERE account_id = $1::uuid AND tx_id = ANY($2::text[])`,
    detail: (r) => `sub-account ${r.detail}`,
  },
};

const KIND_OF_PREFIX = new Map<string, IdKind>(
  Object.entries(ID_KINDS).map(([kind, prefix]) => [prefix, kind as IdKind]),
);

/** The record refs a cell names (`spot:1+spot:2 margin:3` -> three), in their order, each once. */
export function recordRefs(cell: string | undefined): string[] {
  return [...new Set((cell ?? '').split(/[ +]/).filter((ref) => ref.includes(':')))];
}

function parseRef(ref: string): { kind: IdKind; id: string } | undefined {
  const colon = ref.indexOf(':');
  const kind = KIND_OF_PREFIX.get(ref.slice(0, colon + 1));
  return kind === undefined ? undefined : { kind, id: ref.slice(colon + 1) };
}

/** The records the refs name, by ref (a ref of no known kind, or no longer stored, is absent). */
export async function exchangeRecords(
  pool: pg.Pool,
  accountId: string,
  refs: readonly string[],
): Promise<Map<string, ExchangeRecord[]>> {
  const idsByKind = new Map<IdKind, string[]>();
  for (const ref of refs) {
    const parsed = parseRef(ref);
    if (parsed === undefined || SOURCES[parsed.kind] === undefined) continue;
    idsByKind.set(parsed.kind, [...(idsByKind.get(parsed.kind) ?? []), parsed.id]);
  }
  const out = new Map<string, ExchangeRecord[]>();
  for (const [kind, ids] of idsByKind) {
    const source = SOURCES[kind]!;
    const { rows } = await pool.query<Row>(source.sql, [accountId, ids]);
    for (const r of rows) {
      const ref = `${idPrefix(kind)}${r.id}`;
      const record: ExchangeRecord = {
        ref,
        ledger: source.ledger,
        id: r.id,
        atMs: Number(r.ms),
        type: r.type,
        coin: r.coin,
        amount: r.amount,
        fee: r.fee,
        detail: source.detail(r),
      };
      out.set(ref, [...(out.get(ref) ?? []), record]);
    }
  }
  return out;
}

/** At most this many records are listed under one row (a day's disposal can name many): the rest are counted. */
export const RECORDS_SHOWN = 40;

/** The records of one row: a table of them, in the year's own time; refs not found are named as such. */
export function recordsTable(
  method: RulesMethod,
  refs: readonly string[],
  found: ReadonlyMap<string, ExchangeRecord[]>,
): Html {
  if (refs.length === 0) return html`<p class="none">No exchange record (nothing was held: see the rule).</p>`;
  const shown = refs.slice(0, RECORDS_SHOWN);
  return html`<table class="records">
      <thead>
        <tr>
          <th>Record</th>
          <th>Id at the exchange</th>
          <th>Time</th>
          <th>Type</th>
          <th>Amount</th>
          <th>Fee</th>
          <th>Where</th>
        </tr>
      </thead>
      <tbody>
        ${shown.map((ref) => {
          const records = found.get(ref);
          if (records === undefined) {
            return html`<tr data-ref="${ref}">
              <td colspan="7">${ref}: no longer stored</td>
            </tr>`;
          }
          return records.map(
            (r) =>
              html`<tr data-ref="${ref}">
                <td>${r.ledger}</td>
                <td><code class="id">${r.id}</code></td>
                <td class="nowrap">${recordTimeWords(method, r.atMs)}</td>
                <td>${r.type}</td>
                <td class="figure">${r.amount} ${r.coin}</td>
                <td class="figure">${r.fee}</td>
                <td>${r.detail}</td>
              </tr>`,
          );
        })}
      </tbody>
    </table>
    ${refs.length > shown.length ? html`<p>and ${refs.length - shown.length} more records</p>` : ''}`;
}
