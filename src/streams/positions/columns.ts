import type { Columns, RecordOf } from '../kit/columns.ts';

/**
 * A closed futures position (docs/exchange-api.md §5.3), field by field: the
 * one declaration of its columns. The field table spells cTime/uTime, the
 * live exchange sends ctime/utime: either is read, both become cTime/uTime. `holdSide` signs a
 * position's P&L in the bookings and checks: core. `posMode` and `marginMode` are only printed
 * (the recorded answers leave `posMode` out): not core, and
 * test/streams/core-columns-read.unit.test.ts keeps any report or check from reading them otherwise.
 */
export const positionColumns = {
  positionId: { kind: 'id', column: 'position_id', pgType: 'text', core: true },
  symbol: { kind: 'id', column: 'symbol', pgType: 'text', core: true },
  marginCoin: { kind: 'id', column: 'margin_coin', pgType: 'text', core: true },
  holdSide: { kind: 'listed', column: 'hold_side', pgType: 'hold_side', core: true, values: ['long', 'short'] },
  posMode: {
    kind: 'listed',
    column: 'pos_mode',
    pgType: 'pos_mode',
    core: false,
    values: ['one_way_mode', 'hedge_mode'],
  },
  marginMode: {
    kind: 'listed',
    column: 'margin_mode',
    pgType: 'margin_mode',
    core: false,
    values: ['isolated', 'crossed'],
  },
  openAvgPrice: { kind: 'decimal', column: 'open_avg_price', pgType: 'numeric', core: true },
  closeAvgPrice: { kind: 'decimal', column: 'close_avg_price', pgType: 'numeric', core: true },
  openTotalPos: { kind: 'decimal', column: 'open_total_pos', pgType: 'numeric', core: true },
  closeTotalPos: { kind: 'decimal', column: 'close_total_pos', pgType: 'numeric', core: true },
  pnl: { kind: 'decimal', column: 'pnl', pgType: 'numeric', core: true },
  netProfit: { kind: 'decimal', column: 'net_profit', pgType: 'numeric', core: true },
  totalFunding: { kind: 'decimal', column: 'total_funding', pgType: 'numeric', core: true },
  openFee: { kind: 'decimal', column: 'open_fee', pgType: 'numeric', core: true },
  closeFee: { kind: 'decimal', column: 'close_fee', pgType: 'numeric', core: true },
  cTime: { kind: 'unix-ms', aliases: ['ctime'], column: 'created_time', pgType: 'timestamptz', core: true },
  uTime: { kind: 'unix-ms', aliases: ['utime'], column: 'updated_time', pgType: 'timestamptz', core: true },
} as const satisfies Columns;

export type PositionRecord = RecordOf<typeof positionColumns>;
