import { itemSchema } from '../kit/columns.ts';
import { pageList } from '../kit/page-list.ts';
import { futuresLedgerColumns } from './columns.ts';

/** A bare array of records, like spot-record's (docs/exchange-api.md §5.6); listed values are checked at storage. */
export const futureRecordData = pageList(itemSchema(futuresLedgerColumns));
