import { enumValue } from '../kit/enum-value.ts';
import type { TransferRecord } from '../kit/record-types.ts';
import { msToIso, RAW_COLUMN, type TableSpec, UNMAPPED_COLUMN } from '../kit/table-spec.ts';

export const brokerTransferTable: TableSpec<TransferRecord> = {
  table: 'broker_transfer',
  key: ['account_id', 'tx_id', 'type'],
  // ts is the record's last update (pending, then success or fail): a page read before the
  // settlement but committed after another window stored it must not set it back to pending.
  newerOnly: 'EXCLUDED.ts >= t.ts',
  columns: [
    { name: 'account_id', paramType: 'uuid' },
    { name: 'tx_id', paramType: 'text' },
    { name: 'type', paramType: 'text' },
    { name: 'sub_uid', paramType: 'text' },
    { name: 'coin', paramType: 'text' },
    { name: 'sub_type', paramType: 'transfer_sub_type' },
    { name: 'amount', paramType: 'numeric' },
    { name: 'status', paramType: 'transfer_status' },
    { name: 'ts', paramType: 'timestamptz' },
    RAW_COLUMN,
    UNMAPPED_COLUMN,
  ],
  toRow(r, accountId) {
    const unmapped: string[] = [];
    // type is part of the natural key, so it is stored exactly; only flagged.
    if (r.type !== 'deposit' && r.type !== 'withdrawal') unmapped.push('type');
    const subType = enumValue(['onchain', 'internal', 'fast'], r.subType, 'subType', unmapped);
    const status = enumValue(['pending', 'fail', 'success'], r.status, 'status', unmapped);
    return [
      accountId,
      r.txId,
      r.type,
      r.uid,
      r.coin,
      subType,
      r.amount,
      status,
      msToIso(r.ts),
      r.raw,
      unmapped.join(','),
    ];
  },
};
