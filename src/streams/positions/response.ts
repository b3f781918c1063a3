import { z } from 'zod';

import { optionalId } from '../../exchange/responses/fields.ts';
import { itemSchema } from '../kit/columns.ts';
import { pageList } from '../kit/page-list.ts';
import { positionColumns } from './columns.ts';

// Listed values (holdSide, posMode, ...) are plain strings here: checking them against the spec's
// lists is ingestion's job, which keeps unlisted ones flagged.
export const historyPositionData = z
  .object({
    list: pageList(itemSchema(positionColumns)),
    endId: optionalId,
  })
  .transform((data) => ({ list: data.list, endId: data.endId }));

export type HistoryPositionPage = z.output<typeof historyPositionData>;
