import { declareLedger } from '../kit/ledger-declaration.ts';
import { idLessThanPaging } from '../kit/paging-strategy.ts';
import { p2pLedgerColumns } from './columns.ts';
import { p2pRecordEndpoint } from './endpoint.ts';
import { P2P_CHANGE_SQL, P2P_TREATMENTS } from './tax-types.ts';

/**
 * The P2P wallet's finance records (docs/exchange-api.md §5.9): windowed by ts on a 30-day grid,
 * paged by idLessThan, one scope. No running balance is sent: the wallet is the sum of its records.
 */
export const p2pLedger = declareLedger({
  name: 'p2p-ledger',
  title: 'P2P ledger',
  endpoint: p2pRecordEndpoint,
  columns: p2pLedgerColumns,
  table: 'p2p_ledger_record',
  id: 'id',
  time: 'ts',
  paging: idLessThanPaging('ts'),
  wallet: {
    label: 'p2p',
    name: 'P2P',
    coin: 'coin',
    type: 'p2p_tax_type',
    change: P2P_CHANGE_SQL,
    transferIn: 'transfer_in',
    transferOut: 'transfer_out',
    // No fiat amount in the record: a buy's cost (a sell's proceeds) must come from elsewhere,
    // never invented; both flagged `review:<type>` (their treatments say so).
    treatments: P2P_TREATMENTS,
  },
});
