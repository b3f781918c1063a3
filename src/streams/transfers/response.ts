import { z } from 'zod';

import { optionalId } from '../../exchange/responses/fields.ts';
import { itemSchema } from '../kit/columns.ts';
import { pageList } from '../kit/page-list.ts';
import { transferColumns } from './columns.ts';

// The cursor is data.endId on the live exchange and data.cursor in the field table: both accepted.
export const allSubDepositWithdrawalData = z
  .object({
    list: pageList(itemSchema(transferColumns)),
    endId: optionalId,
    cursor: optionalId,
  })
  .transform((data) => ({ list: data.list, cursor: data.endId ?? data.cursor }));

export type AllSubDepositWithdrawalPage = z.output<typeof allSubDepositWithdrawalData>;
