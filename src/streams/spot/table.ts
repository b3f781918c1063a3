import { tableOf } from '../kit/columns.ts';
import { spotColumns } from './columns.ts';

export const spotRecordTable = tableOf(spotColumns, { table: 'spot_record', key: ['account_id', 'record_id'] });
