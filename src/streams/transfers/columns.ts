import type { Columns, RecordOf } from '../kit/columns.ts';

/** A broker sub-account's deposit or withdrawal (docs/exchange-api.md §5.5): the one declaration of its columns. */
export const transferColumns = {
  txId: { kind: 'id', column: 'tx_id', pgType: 'text', core: true },
  // Part of the natural key, so stored exactly (text); an unlisted one is only flagged.
  type: { kind: 'listed', column: 'type', pgType: 'text', core: true, values: ['deposit', 'withdrawal'] },
  uid: { kind: 'id', column: 'sub_uid', pgType: 'text', core: true },
  coin: { kind: 'id', column: 'coin', pgType: 'text', core: true },
  subType: {
    kind: 'listed',
    column: 'sub_type',
    pgType: 'transfer_sub_type',
    core: false,
    values: ['onchain', 'internal', 'fast'],
  },
  amount: { kind: 'decimal', column: 'amount', pgType: 'numeric', core: true },
  status: {
    kind: 'listed',
    column: 'status',
    pgType: 'transfer_status',
    core: true,
    values: ['pending', 'fail', 'success'],
  },
  ts: { kind: 'unix-ms', column: 'ts', pgType: 'timestamptz', core: true },
} as const satisfies Columns;

export type TransferRecord = RecordOf<typeof transferColumns>;
