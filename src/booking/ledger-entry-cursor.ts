import { Decimal } from 'decimal.js';
import type pg from 'pg';

import { ENTRY_ORDER, ledgerEntriesCte } from './ledger-entries.ts';
import { ENTRY_WALLETS, type LedgerEntry } from './ledger-entry.ts';
import { SqlParams } from './sql-params.ts';

/** Entries fetched per round trip: the most held at once. */
const BATCH = 2_000;
/** Before any record the exchange can have. */
export const BEGINNING = new Date(0);

/**
 * The account's ledger (spot, futures, margin and P2P wallets) from its first record up to `end` (exclusive), as the tax-tool reports
 * pair it (ledger-entries.ts: one pairing for every report), in ENTRY_ORDER (time, record id, wallet, entry id). Read with
 * DECLARE/FETCH inside a read-only repeatable-read transaction rather than a protocol-level cursor:
 * each FETCH is a complete statement, so the price book's own queries can run on the same
 * connection between two batches, and the whole walk sees one snapshot.
 */
export async function* readLedgerEntries(db: pg.ClientBase, accountId: string, end: Date): AsyncGenerator<LedgerEntry> {
  await db.query(BEGIN_SNAPSHOT);
  let done = false;
  try {
    yield* fetchLedgerEntries(db, accountId, { start: BEGINNING, end });
    await db.query('COMMIT');
    done = true;
  } finally {
    // An error, or a consumer that stopped early: end the transaction, the cursor with it.
    if (!done) await db.query('ROLLBACK');
  }
}

/** The transaction a walk reads in: one snapshot for its records, its prices and its checkpoint. */
export const BEGIN_SNAPSHOT = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';

/**
 * The entries dated in [start, end), in the caller's transaction (BEGIN_SNAPSHOT): the same
 * entries a read from the first record yields from `start` on, since an entry lies in the period
 * of its earliest leg and its order is paired from all its legs wherever they lie
 * (ledger-entries.ts). A consumer that stops early leaves the cursor to the transaction's end.
 */
export async function* fetchLedgerEntries(
  db: pg.ClientBase,
  accountId: string,
  period: { readonly start: Date; readonly end: Date },
): AsyncGenerator<LedgerEntry> {
  const p = new SqlParams();
  // The gains walk's lots follow every wallet: spot, futures, margin and P2P.
  const cte = ledgerEntriesCte(p, { accountId, period }, { walletLedgers: true });
  const text = `DECLARE ledger_entries NO SCROLL CURSOR FOR ${cte}
    SELECT (extract(epoch FROM ts) * 1000)::bigint::text, sent_amount::text, sent_coin,
           received_amount::text, received_coin, fee_amount::text, fee_coin,
           category, spot_types, record_ids, flag, wallet, third_fee_amount::text, third_fee_coin,
           third_fee_ids, attached, pair_id
    FROM entries ${ENTRY_ORDER}`;
  await db.query(text, p.values);
  for (;;) {
    const { rows } = await db.query<(string | boolean | null)[]>({
      text: `FETCH ${BATCH} FROM ledger_entries`,
      rowMode: 'array',
    });
    for (const row of rows) yield toEntry(row);
    if (rows.length < BATCH) break;
  }
  await db.query('CLOSE ledger_entries');
}

function toEntry(row: (string | boolean | null)[]): LedgerEntry {
  const texts = row as (string | null)[];
  const [ms, sent, sentCoin, received, receivedCoin, fee, feeCoin, category, spotTypes, recordIds, flag] = texts;
  const [wallet, thirdAmount, thirdCoin, thirdIds] = texts.slice(11);
  const attached = row[15];
  return {
    atMs: Number(ms),
    sentAmount: amount(sent),
    sentCoin: sentCoin ?? null,
    receivedAmount: amount(received),
    receivedCoin: receivedCoin ?? null,
    feeAmount: amount(fee),
    feeCoin: feeCoin ?? null,
    category: category ?? 'unmapped',
    spotTypes: spotTypes ?? '',
    recordIds: recordIds ?? '',
    flag: flag ?? null,
    wallet: ENTRY_WALLETS.find((w) => w === wallet) ?? 'spot',
    thirdFee:
      typeof thirdAmount === 'string' && typeof thirdCoin === 'string'
        ? { amount: new Decimal(thirdAmount), coin: thirdCoin, recordIds: thirdIds ?? '' }
        : null,
    attached: attached === true,
    ...(wallet === 'futures' ? { pairId: texts[16] ?? null } : {}),
  };
}

function amount(value: string | null | undefined): Decimal | null {
  return value === null || value === undefined ? null : new Decimal(value);
}
