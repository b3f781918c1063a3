import { z } from 'zod';

import { decimal, id, timestamp } from './fields.ts';

export const fundNetFlowData = z.array(z.object({ netFlow: decimal, ts: timestamp }));

export const openInterestLimitData = z.object({
  symbol: id,
  singleUserLimit: decimal,
  masterSubLimit: decimal,
  marketMakerLimit: decimal,
});

export type NetFlowPoint = z.output<typeof fundNetFlowData>[number];
export type OpenInterestLimit = z.output<typeof openInterestLimitData>;
