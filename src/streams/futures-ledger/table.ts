import { tableOf } from '../kit/columns.ts';
import type { TableSpec } from '../kit/table-spec.ts';
import { PRODUCT_TYPE_COLUMN, type ProductTypeValue } from '../positions/table.ts';
import { futuresLedgerColumns, type FuturesLedgerRecord } from './columns.ts';

/** Records are read per productType, which the record itself does not carry. */
export interface ScopedFuturesRecord {
  productType: ProductTypeValue;
  record: FuturesLedgerRecord;
}

const recordTable = tableOf(futuresLedgerColumns, { table: 'futures_ledger_record', key: ['account_id', 'record_id'] });

/** The scope a record was read under, stored beside the record's own columns (as for positions). */
export const futuresLedgerTable: TableSpec<ScopedFuturesRecord> = {
  ...recordTable,
  columns: [recordTable.columns[0]!, PRODUCT_TYPE_COLUMN, ...recordTable.columns.slice(1)],
  toRow({ productType, record }, accountId) {
    const [account, ...rest] = recordTable.toRow(record, accountId);
    return [account, productType, ...rest];
  },
};
