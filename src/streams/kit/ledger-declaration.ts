import type { z } from 'zod';

import { msParam, toMs } from '../../db/sql-time.ts';
import { exchangeBounds, type ExchangeClient, type TimeWindow } from '../../exchange/index.ts';
import { type Columns, itemSchema, type RecordOf, tableOf } from './columns.ts';
import { pageList } from './page-list.ts';
import { pageCap, pageWindow } from './page-window.ts';
import { endCheckOf, type PagingStrategy } from './paging-strategy.ts';
import {
  ALWAYS_ELIGIBLE,
  type StreamDefinition,
  type StreamHorizon,
  type WalletFacts,
  type WindowPaging,
} from './stream-definition.ts';
import type { StreamEndpoint } from './stream-endpoint.ts';
import type { ColumnSpec, TableSpec } from './table-spec.ts';
import type { HistoryTreatments } from './treatments.ts';

/** A history read once per value of one request parameter (productType, marginType), stored in a column of its own. */
export interface ScopeDeclaration {
  /** The request parameter the scope is sent as. */
  readonly param: string;
  readonly values: readonly string[];
  /** The column the scope is stored in, beside the record's own (its Postgres type: `paramType`). */
  readonly column: ColumnSpec;
}

/**
 * A history, declared: everything else (its response reader, table writer, pager, the
 * reconciliation's key, crowding and replay queries) is derived by `declareLedger`. The
 * declaration is the stream's folder's `stream.ts`; `test/streams/stream-declarations.unit.test.ts`
 * holds the Prisma model to its columns.
 */
export interface LedgerDeclaration<C extends Columns> {
  readonly name: string;
  readonly title: string;
  readonly endpoint: StreamEndpoint;
  readonly columns: C;
  /** The table, keyed by (account_id, the id field's column). */
  readonly table: string;
  /** The record's id (its natural key within the account, and the paging cursor). */
  readonly id: keyof C & string;
  /** The time field windows are read by. */
  readonly time: keyof C & string;
  /** How it is paged (paging-strategy.ts): `idLessThanPaging(<the time field>)`, the one the pager derived here runs. */
  readonly paging: PagingStrategy<'time-windows-id-less-than'>;
  readonly scope?: ScopeDeclaration;
  readonly horizon?: StreamHorizon;
  /** The wallet the records move, for reconciliation's replay and transfer pairing (and the tax files). */
  readonly wallet?: WalletFacts;
}

/** A record with the scope it was read under (the record itself does not carry it); '' when the history has none. */
export interface ScopedRecord<R> {
  scope: string;
  record: R;
}

export type LedgerDefinition<C extends Columns> = StreamDefinition<ScopedRecord<RecordOf<C>>> & {
  readonly responseSchema: z.ZodType<RecordOf<C>[], unknown>;
};

/** The stream definition a ledger declaration implies. */
export function declareLedger<C extends Columns>(
  declaration: LedgerDeclaration<C> & { wallet: WalletFacts },
): LedgerDefinition<C> & { wallet: WalletFacts };
export function declareLedger<C extends Columns>(declaration: LedgerDeclaration<C>): LedgerDefinition<C>;
export function declareLedger<C extends Columns>(declaration: LedgerDeclaration<C>): LedgerDefinition<C> {
  const { name, endpoint, columns, scope } = declaration;
  const responseSchema = pageList(itemSchema(columns));
  const table = scopedTable(
    tableOf(columns, { table: declaration.table, key: ['account_id', col(declaration.id)] }),
    scope,
  );
  const idColumn = col(declaration.id);
  const tsColumn = col(declaration.time);
  const scopeSql = scope ? `${scope.column.name}::text` : `''`;
  const scopeFilter = scope ? `AND ${scope.column.name} = $4::text::${scope.column.paramType}` : '';

  function col(field: keyof C & string): string {
    return columns[field]!.column;
  }

  return {
    name,
    title: declaration.title,
    endpoint,
    scopes: scope ? scope.values : [''],
    ...(declaration.horizon ? { horizon: declaration.horizon } : {}),
    changesAfterTheFact: false,
    columns,
    ...(scope ? { scopeColumn: scope.column } : {}),
    table,
    answer: { schema: responseSchema, shape: 'array' },
    responseSchema,
    ...(declaration.wallet ? { wallet: declaration.wallet, treatments: walletTreatments(declaration.wallet) } : {}),
    paging: declaration.paging,
    eligible: ALWAYS_ELIGIBLE,
    lookbackMs: (settings) => settings.lookbackMs,
    pages(client, window, scopeValue, resumeFrom, paging) {
      if (scope && !scope.values.includes(scopeValue)) {
        // Scopes come from the declaration through the coverage ledger; anything else is a corrupt row.
        throw new Error(`${name} scope ${JSON.stringify(scopeValue)} is not a ${scope.param}`);
      }
      const query = scope ? { [scope.param]: scopeValue } : {};
      return pageByIdLessThan(client, declaration.paging, endpoint, responseSchema, window, query, resumeFrom, paging, {
        idOf: (record) => (record as Record<string, string>)[declaration.id]!,
        wrap: (record) => ({ scope: scopeValue, record }),
      });
    },
    keyOf: (record) => (record.record as Record<string, string>)[declaration.id]!,
    storedKeysQuery: (accountId, scopeValue, window) => ({
      text: `SELECT ${idColumn} AS key, read_id::text AS read FROM ${declaration.table}
              WHERE account_id = $1 ${scopeFilter}
                AND ${tsColumn} >= ${msParam(2)} AND ${tsColumn} < ${msParam(3)}`,
      values: [accountId, String(window.start), String(window.end), ...(scope ? [scopeValue] : [])],
    }),
    crowdedInstantsQuery: (accountId, atLeast, since = 0) => ({
      text: `SELECT ${scopeSql} AS scope, ${toMs(tsColumn)} AS ts, count(*) AS stored FROM ${declaration.table}
              WHERE account_id = $1 AND ${tsColumn} >= ${msParam(3)}
              GROUP BY ${scope ? `${scope.column.name}, ` : ''}${tsColumn} HAVING count(*) >= $2`,
      values: [accountId, atLeast, String(since)],
    }),
    runningBalance: false,
  };
}

/** A wallet ledger's treatments (its facts' table), under its label: the gains walk reads it as every other history. */
function walletTreatments(wallet: WalletFacts): HistoryTreatments {
  return { wallet: wallet.label, typeColumn: wallet.type, byType: wallet.treatments };
}

/** The scope stored beside the record's own columns, after `account_id` (as positions and futures-ledger do). */
function scopedTable<R>(table: TableSpec<R>, scope: ScopeDeclaration | undefined): TableSpec<ScopedRecord<R>> {
  if (!scope) {
    return { ...table, toRow: (scoped, accountId) => table.toRow(scoped.record, accountId) };
  }
  return {
    ...table,
    columns: [table.columns[0]!, scope.column, ...table.columns.slice(1)],
    toRow(scoped, accountId) {
      const [account, ...rest] = table.toRow(scoped.record, accountId);
      return [account, scoped.scope, ...rest];
    },
  };
}

/** The `time-windows-id-less-than` pager: one window, newest to oldest, idLessThan = the last record's id. */
function pageByIdLessThan<R, S extends ScopedRecord<R>>(
  client: ExchangeClient,
  strategy: PagingStrategy,
  endpoint: StreamEndpoint,
  schema: z.ZodType<R[], unknown>,
  window: TimeWindow,
  query: Record<string, string>,
  resumeFrom: string | null,
  paging: WindowPaging | undefined,
  records: { idOf: (record: R) => string; wrap: (record: R) => S },
) {
  const request = endpoint.request(() => client.now());
  const limit = paging?.limit ?? endpoint.pageLimit;
  const ask = (bounds: Record<string, string | number | undefined>) =>
    client.call(endpoint, request, schema, { ...query, ...bounds });
  return pageWindow<S>(
    endpoint.name,
    async (cursor) => {
      const list = await ask({ ...exchangeBounds(window), limit, idLessThan: cursor ?? undefined });
      const last = list.at(-1);
      return { items: list.map(records.wrap), next: last === undefined ? null : records.idOf(last) };
    },
    resumeFrom,
    strategy.order,
    pageCap(window, limit),
    endCheckOf<S>(strategy, window, limit, async (bounds) => (await ask({ ...bounds, limit: 1 })).length > 0, {
      resumed: paging?.resumed,
      recordOf: (scoped) => scoped.record,
    }),
    { limit, endsShort: paging?.endsShort ?? false },
  );
}
