import { msParam, toMs } from '../../db/sql-time.ts';
import { crowdedInstantsByTs, type StreamDefinition } from '../kit/stream-definition.ts';
import { transferColumns, type TransferRecord } from './columns.ts';
import { allSubDepositWithdrawalEndpoint } from './endpoint.ts';
import { pageSubDepositWithdrawals, TRANSFER_PAGING } from './pager.ts';
import { allSubDepositWithdrawalData } from './response.ts';
import { brokerTransferTable } from './table.ts';

/**
 * Deposits and withdrawals of a broker's sub-accounts, windowed by ts, which
 * is the record's last update: a pending transfer moves when it settles.
 */
export const transfers: StreamDefinition<TransferRecord> = {
  name: 'transfers',
  title: 'Broker transfers',
  answer: { schema: allSubDepositWithdrawalData, shape: 'list-and-end-id' },
  endpoint: allSubDepositWithdrawalEndpoint,
  scopes: [''],
  changesAfterTheFact: true,
  columns: transferColumns,
  paging: TRANSFER_PAGING,
  table: brokerTransferTable,
  eligible: (account) =>
    account.isBrokerParent
      ? { eligible: true }
      : {
          eligible: false,
          needs: 'a broker parent account (register it with --broker)',
          because: 'the account is not a broker parent',
        },
  lookbackMs: (settings) => settings.settlingLookbackMs,
  pages: (client, window, _scope, resumeFrom, paging) =>
    pageSubDepositWithdrawals(
      client,
      window,
      {},
      { resumeFrom, endsShort: paging?.endsShort ?? false, resumed: paging?.resumed, limit: paging?.limit },
    ),
  keyOf: (record) => `${record.txId}/${record.type}`,
  storedKeysQuery: (accountId, _scope, window) => ({
    text: `SELECT tx_id || '/' || type AS key, CASE WHEN status = 'pending' THEN ${toMs('ts')} END AS pending,
                  read_id::text AS read
             FROM broker_transfer
            WHERE account_id = $1 AND ts >= ${msParam(2)} AND ts < ${msParam(3)}`,
    values: [accountId, String(window.start), String(window.end)],
  }),
  crowdedInstantsQuery: crowdedInstantsByTs('broker_transfer'),
  runningBalance: false,
};
