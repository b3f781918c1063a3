import { SPOT_TAX_TYPES } from '../../exchange/spot-tax-types.ts';
import type { SpotLedgerRecord } from '../kit/record-types.ts';
import { msToIso, RAW_COLUMN, type TableSpec, UNMAPPED_COLUMN } from '../kit/table-spec.ts';

const KNOWN_TAX_TYPES = new Set<string>(SPOT_TAX_TYPES);

export const spotRecordTable: TableSpec<SpotLedgerRecord> = {
  table: 'spot_record',
  key: ['account_id', 'record_id'],
  columns: [
    { name: 'account_id', paramType: 'uuid' },
    { name: 'record_id', paramType: 'text' },
    { name: 'coin', paramType: 'text' },
    { name: 'spot_tax_type', paramType: 'text' },
    { name: 'amount', paramType: 'numeric' },
    { name: 'fee', paramType: 'numeric' },
    { name: 'balance', paramType: 'numeric' },
    { name: 'biz_order_id', paramType: 'text' },
    { name: 'ts', paramType: 'timestamptz' },
    RAW_COLUMN,
    UNMAPPED_COLUMN,
  ],
  toRow(record, accountId) {
    // spot_tax_type stays text (the exact value); an unlisted one is flagged.
    const unmapped = KNOWN_TAX_TYPES.has(record.spotTaxType) ? '' : 'spotTaxType';
    return [
      accountId,
      record.id,
      record.coin,
      record.spotTaxType,
      record.amount,
      record.fee,
      record.balance,
      record.bizOrderId,
      msToIso(record.ts),
      record.raw,
      unmapped,
    ];
  },
};
