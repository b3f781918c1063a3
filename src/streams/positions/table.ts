import { tableOf } from '../kit/columns.ts';
import type { TableSpec } from '../kit/table-spec.ts';
import { positionColumns, type PositionRecord } from './columns.ts';

/** Positions are read per productType, which the record itself does not carry. */
export type ProductTypeValue = 'USDT-FUTURES' | 'COIN-FUTURES' | 'USDC-FUTURES';

export interface ScopedPosition {
  productType: ProductTypeValue;
  position: PositionRecord;
}

const positionTable = tableOf(positionColumns, { table: 'futures_position', key: ['account_id', 'position_id'] });

/** The scope a position was read under, stored beside the record's own columns. */
export const PRODUCT_TYPE_COLUMN = { name: 'product_type', paramType: 'product_type' };

export const futuresPositionTable: TableSpec<ScopedPosition> = {
  ...positionTable,
  columns: [positionTable.columns[0]!, PRODUCT_TYPE_COLUMN, ...positionTable.columns.slice(1)],
  toRow({ productType, position }, accountId) {
    const [account, ...rest] = positionTable.toRow(position, accountId);
    return [account, productType, ...rest];
  },
};
