import type pg from 'pg';
import type { z } from 'zod';

import { msParam, toMs } from '../../db/sql-time.ts';
import type { ExchangeClient, TimeWindow } from '../../exchange/index.ts';
import type { Columns } from './columns.ts';
import type { Page, ResumedRead } from './page-window.ts';
import type { PagingStrategy } from './paging-strategy.ts';
import type { StreamEndpoint } from './stream-endpoint.ts';
import type { ColumnSpec, TableSpec } from './table-spec.ts';
import type { HistoryTreatments, Treatment } from './treatments.ts';

/** What eligibility looks at of an account (src/accounts' summary has it). */
export interface StreamAccount {
  readonly isBrokerParent: boolean;
}

/** Whether an account can have a stream at all; when not, why, in the operator's words. */
export type Eligibility = { eligible: true } | { eligible: false; needs: string; because: string };

/** For a stream the exchange forgets: how far back it still serves, and how to say so. */
export interface StreamHorizon {
  /** E.g. "3-month horizon", as in "older than the 3-month horizon". */
  readonly name: string;
  readonly days: number;
  /** The oldest start that can still be asked for at `now` (with a safety margin). */
  oldestReadable(now: number, marginMs?: number): number;
  /**
   * The oldest instant the pager could ask for just now, by the client's
   * clock. Checked after a window's last page, it is no earlier than any
   * start the pager used: what lies before it in the window was not read.
   */
  servedFrom(client: ExchangeClient): number;
}

/** How long before the end of covered data an incremental sync reads again. */
export interface LookbackSettings {
  /** For records that never change once published (positions, spot records). */
  lookbackMs: number;
  /** For records that change after the fact (a transfer that settles). */
  settlingLookbackMs: number;
}

/**
 * Everything ingestion, planning and reconciliation need to know about one
 * history stream. The engine asks the stream instead of branching on its
 * name: adding a stream is one new folder like `src/streams/spot/`, its
 * migration, and one line in `registry.ts`.
 *
 * Methods are declared as methods on purpose: their parameters are then
 * checked bivariantly, so every `StreamDefinition<R>` is a
 * `StreamDefinition<unknown>` and the registry needs no cast.
 */
/**
 * The wallet a ledger's records move (margin, P2P), by its table's columns: what reconciliation
 * replays and pairs with spot, and what the tax files book. Every value is SQL over the table's
 * row (no alias), written by the ledger's declaration.
 */
export interface WalletFacts {
  /** The wallet's key in the tax files (Koinly's file suffix, the entries' `wallet`, the ids' prefix), e.g. "margin". */
  readonly label: string;
  /** Its name for people: CoinTracking's Exchange column (`<account> <name>`), e.g. "Margin". */
  readonly name: string;
  /** The coin column. */
  readonly coin: string;
  /** The type column (the record's tax type). */
  readonly type: string;
  /** SQL: the record's signed change to its wallet's balance of the coin. */
  readonly change: string;
  /**
   * When the exchange sends the fee apart: the columns of the record's amount and fee (0 or
   * negative), change = amount + fee. The tax files write each as the exchange's own digits.
   */
  readonly amountAndFee?: { readonly amount: string; readonly fee: string };
  /** The column holding the coin's balance in the wallet after the record, when the exchange sends one. */
  readonly runningTotal?: string;
  /** Types that move the coin in from spot (each paired with a spot `Transfer out`) and out to spot (`Transfer in`). */
  readonly transferIn: string;
  readonly transferOut: string;
  /**
   * Each listed type's tax treatment (the ledger's tax-types.ts): what the gains walk does with it
   * and the word its report and the tax files show (the kind); `review` ones flagged `review:<type>`.
   * The stream's `treatments` (HistoryTreatments) are these, under the wallet's `label`.
   */
  readonly treatments: Readonly<Record<string, Treatment>>;
  /**
   * The types whose records are the two legs of one trade, per kind of trade (margin: a deal, a
   * swap), the exchange giving no order id: at one instant of one scope, the k-th leg given
   * (change < 0) and the k-th received of another coin, of the same kind, are one trade in the tax
   * files and the gains walk; a leg left over is an entry of its own, flagged `unpaired-leg`.
   */
  readonly tradeLegs?: readonly (readonly string[])[];
}

/** What the caller of a stream's pager knows of the endpoint's pages (page-fill.ts) and of the read it resumes. */
export interface WindowPaging {
  readonly endsShort?: boolean;
  /** A read resumed from its stored cursor: what it left behind (page-window.ts, EndCheck). */
  readonly resumed?: ResumedRead | undefined;
  /** The `limit` each page is asked for (default: the endpoint's `pageLimit`); tests ask small pages of sparse histories. */
  readonly limit?: number;
}

/** How a history's answer carries its records: a bare array, or `{ list, endId }`. */
export interface AnswerShape {
  readonly schema: z.ZodType;
  readonly shape: 'array' | 'list-and-end-id';
}

export interface StreamDefinition<R> {
  /** The stream's key in the coverage ledger (`sync_window.stream`). */
  readonly name: string;
  /** Its name for people: the web page's timeline, the demo's summary, `status`. */
  readonly title: string;
  /** Its answer page's schema and shape (the tests build answers from it). */
  readonly answer: AnswerShape;
  /** Set for a ledger of a wallet of its own (margin, P2P): reconciliation replays it and pairs its transfers with spot. */
  readonly wallet?: WalletFacts;
  /**
   * Set for a history whose records the gains walk reads (spot, futures, every wallet ledger): its
   * wallet's word and one tax treatment per documented type (kit/treatments.ts).
   */
  readonly treatments?: HistoryTreatments;
  /**
   * The exchange endpoint it is read from, declared in the stream's folder: path, rate budget,
   * request rules, the widest window one request may cover, the horizon and the page size.
   */
  readonly endpoint: StreamEndpoint;
  /** Separately-read parts of the stream ('' when it has one). */
  readonly scopes: readonly string[];
  /** Set when the exchange forgets the stream's records after a while. */
  readonly horizon?: StreamHorizon;
  /** Whether records change after they are first published (and so want the longer lookback). */
  readonly changesAfterTheFact: boolean;
  /** The record's fields: the one declaration its schema, record type and table spec derive from. */
  readonly columns: Columns;
  /** The column the scope is stored in, beside the record's own (positions: product_type). */
  readonly scopeColumn?: ColumnSpec;
  readonly table: TableSpec<R>;
  /**
   * How its windows are paged (paging-strategy.ts): the strategy's `time` field (a key of
   * `columns`) orders its pages, and an empty page after a full one is judged by it.
   */
  readonly paging: PagingStrategy;
  eligible(account: StreamAccount): Eligibility;
  lookbackMs(settings: LookbackSettings): number;
  /**
   * Pages one window of one scope from a saved cursor (null: from the newest record). `paging.endsShort`:
   * the sync has fresh evidence that the endpoint fills its pages, so a short page ends the window
   * (page-fill.ts); without it (the re-counts) paging goes on to the empty page.
   */
  pages(
    client: ExchangeClient,
    window: TimeWindow,
    scope: string,
    resumeFrom: string | null,
    paging?: WindowPaging,
  ): AsyncIterable<Page<R>>;
  /** A record's natural key, as `storedKeysQuery` returns it for the stored row. */
  keyOf(record: R): string;
  /**
   * Reconciliation: the natural keys stored in [start, end) of a scope (by the
   * time field the window was read by), with `pending` set (Unix ms as text)
   * for a row whose time may still move, and `read` the row's read_id as text
   * (a window's fresh read is then its own re-count: reconcile/read-marks.ts;
   * without it the window is asked of the exchange).
   */
  storedKeysQuery(accountId: string, scope: string, window: TimeWindow): pg.QueryConfig;
  /**
   * Reconciliation: every (scope, ts) holding at least `atLeast` stored rows, as `{ scope, ts, stored }`;
   * only instants from `since` on (Unix ms; default all: a nightly check asks only about what it read).
   */
  crowdedInstantsQuery(accountId: string, atLeast: number, since?: number): pg.QueryConfig;
  /**
   * Reconciliation: each record carries its coin's balance after it (spot). Such a
   * stream's balances chain record to record and are anchored at the exchange; its
   * window re-reads answer the balance and paging checks' questions (fresh-reads.ts),
   * and `edge` recounts leave its long-settled windows to the chain.
   */
  readonly runningBalance: boolean;
}

export async function* mapPages<T, R>(pages: AsyncIterable<Page<T>>, map: (item: T) => R): AsyncGenerator<Page<R>> {
  for await (const page of pages) yield { ...page, items: page.items.map(map) };
}

export const ALWAYS_ELIGIBLE = (): Eligibility => ({ eligible: true });

/**
 * `crowdedInstantsQuery` of a stream with one scope whose table is windowed
 * by its `ts` column (spot records, transfers).
 */
export function crowdedInstantsByTs(table: 'spot_record' | 'broker_transfer') {
  return (accountId: string, atLeast: number, since = 0): pg.QueryConfig => ({
    text: `SELECT '' AS scope, ${toMs('ts')} AS ts, count(*) AS stored FROM ${table}
            WHERE account_id = $1 AND ts >= ${msParam(3)} GROUP BY ts HAVING count(*) >= $2`,
    values: [accountId, atLeast, String(since)],
  });
}
