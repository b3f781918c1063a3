import { tableOf } from '../kit/columns.ts';
import { transferColumns } from './columns.ts';

export const brokerTransferTable = tableOf(transferColumns, {
  table: 'broker_transfer',
  key: ['account_id', 'tx_id', 'type'],
  // ts is the record's last update (pending, then success or fail): a page read before the
  // settlement but committed after another window stored it must not set it back to pending.
  newerOnly: 'EXCLUDED.ts >= t.ts',
});
