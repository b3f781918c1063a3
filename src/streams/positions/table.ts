import { enumValue } from '../kit/enum-value.ts';
import type { PositionRecord } from '../kit/record-types.ts';
import { msToIso, RAW_COLUMN, type TableSpec, UNMAPPED_COLUMN } from '../kit/table-spec.ts';

/** Positions are read per productType, which the record itself does not carry. */
export type ProductTypeValue = 'USDT-FUTURES' | 'COIN-FUTURES' | 'USDC-FUTURES';

export interface ScopedPosition {
  productType: ProductTypeValue;
  position: PositionRecord;
}

export const futuresPositionTable: TableSpec<ScopedPosition> = {
  table: 'futures_position',
  key: ['account_id', 'position_id'],
  columns: [
    { name: 'account_id', paramType: 'uuid' },
    { name: 'position_id', paramType: 'text' },
    { name: 'product_type', paramType: 'product_type' },
    { name: 'symbol', paramType: 'text' },
    { name: 'margin_coin', paramType: 'text' },
    { name: 'hold_side', paramType: 'hold_side' },
    { name: 'pos_mode', paramType: 'pos_mode' },
    { name: 'margin_mode', paramType: 'margin_mode' },
    { name: 'open_avg_price', paramType: 'numeric' },
    { name: 'close_avg_price', paramType: 'numeric' },
    { name: 'open_total_pos', paramType: 'numeric' },
    { name: 'close_total_pos', paramType: 'numeric' },
    { name: 'pnl', paramType: 'numeric' },
    { name: 'net_profit', paramType: 'numeric' },
    { name: 'total_funding', paramType: 'numeric' },
    { name: 'open_fee', paramType: 'numeric' },
    { name: 'close_fee', paramType: 'numeric' },
    { name: 'created_time', paramType: 'timestamptz' },
    { name: 'updated_time', paramType: 'timestamptz' },
    RAW_COLUMN,
    UNMAPPED_COLUMN,
  ],
  toRow({ productType, position: p }, accountId) {
    const unmapped: string[] = [];
    const holdSide = enumValue(['long', 'short'], p.holdSide, 'holdSide', unmapped);
    const posMode = enumValue(['one_way_mode', 'hedge_mode'], p.posMode, 'posMode', unmapped);
    const marginMode = enumValue(['isolated', 'crossed'], p.marginMode, 'marginMode', unmapped);
    return [
      accountId,
      p.positionId,
      productType,
      p.symbol,
      p.marginCoin,
      holdSide,
      posMode,
      marginMode,
      p.openAvgPrice,
      p.closeAvgPrice,
      p.openTotalPos,
      p.closeTotalPos,
      p.pnl,
      p.netProfit,
      p.totalFunding,
      p.openFee,
      p.closeFee,
      msToIso(p.cTime),
      msToIso(p.uTime),
      p.raw,
      unmapped.join(','),
    ];
  },
};
