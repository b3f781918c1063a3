import { z } from 'zod';

import { decimal, id, keepingRaw, listedValue, optionalId, rawItem, timestamp } from './fields.ts';

// The field table spells cTime/uTime, the live exchange sends ctime/utime
// (docs/exchange-api.md §5.3): either is accepted and both become cTime/uTime.
// Listed values (holdSide, posMode, ...) are plain strings here: checking them
// against the spec's lists is ingestion's job, which keeps unlisted ones flagged.
const positionItem = z
  .object({
    positionId: id,
    symbol: id,
    marginCoin: id,
    holdSide: listedValue,
    posMode: listedValue,
    openAvgPrice: decimal,
    closeAvgPrice: decimal,
    marginMode: listedValue,
    openTotalPos: decimal,
    closeTotalPos: decimal,
    pnl: decimal,
    netProfit: decimal,
    totalFunding: decimal,
    openFee: decimal,
    closeFee: decimal,
    cTime: timestamp.optional(),
    ctime: timestamp.optional(),
    uTime: timestamp.optional(),
    utime: timestamp.optional(),
    raw: rawItem,
  })
  .transform(({ ctime, utime, cTime, uTime, ...rest }, ctx) => {
    const created = cTime ?? ctime;
    const updated = uTime ?? utime;
    if (created === undefined) ctx.addIssue({ code: 'custom', path: ['cTime'], message: 'cTime or ctime is required' });
    if (updated === undefined) ctx.addIssue({ code: 'custom', path: ['uTime'], message: 'uTime or utime is required' });
    return { ...rest, cTime: created ?? '', uTime: updated ?? '' };
  });

export const historyPositionData = z
  .object({
    list: z.array(keepingRaw(positionItem)).nullish(),
    endId: optionalId,
  })
  .transform((data) => ({ list: data.list ?? [], endId: data.endId }));

export const spotRecordData = z
  .array(
    keepingRaw(
      z.object({
        id,
        coin: id,
        spotTaxType: id,
        amount: decimal,
        fee: decimal,
        balance: decimal,
        bizOrderId: z
          .string()
          .nullish()
          .transform((value) => value ?? ''),
        ts: timestamp,
        raw: rawItem,
      }),
    ),
  )
  .nullable()
  .transform((list) => list ?? []);

// The cursor is data.endId on the live exchange and data.cursor in the field table: both accepted.
export const allSubDepositWithdrawalData = z
  .object({
    list: z
      .array(
        keepingRaw(
          z.object({
            uid: id,
            txId: id,
            coin: id,
            type: listedValue,
            subType: listedValue,
            amount: decimal,
            status: listedValue,
            ts: timestamp,
            raw: rawItem,
          }),
        ),
      )
      .nullish(),
    endId: optionalId,
    cursor: optionalId,
  })
  .transform((data) => ({ list: data.list ?? [], cursor: data.endId ?? data.cursor }));

export type HistoryPositionPage = z.output<typeof historyPositionData>;
export type Position = HistoryPositionPage['list'][number];
export type SpotRecord = z.output<typeof spotRecordData>[number];
export type AllSubDepositWithdrawalPage = z.output<typeof allSubDepositWithdrawalData>;
export type DepositWithdrawalRecord = AllSubDepositWithdrawalPage['list'][number];
