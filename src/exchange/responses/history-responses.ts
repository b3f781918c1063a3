import { z } from 'zod';
import { decimal, id, optionalId, timestamp } from './fields.ts';

// The field table spells cTime/uTime, the live exchange sends ctime/utime
// (decisions.md §4): either is accepted and both become cTime/uTime.
const positionItem = z
  .object({
    positionId: id,
    symbol: id,
    marginCoin: id,
    holdSide: z.enum(['long', 'short']),
    posMode: z.enum(['one_way_mode', 'hedge_mode']),
    openAvgPrice: decimal,
    closeAvgPrice: decimal,
    marginMode: z.enum(['isolated', 'crossed']),
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
    list: z.array(positionItem).nullish(),
    endId: optionalId,
  })
  .transform((data) => ({ list: data.list ?? [], endId: data.endId }));

export const spotRecordData = z
  .array(
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
    }),
  )
  .nullable()
  .transform((list) => list ?? []);

// The cursor is data.endId on the live exchange and data.cursor in the field table: both accepted.
export const allSubDepositWithdrawalData = z
  .object({
    list: z
      .array(
        z.object({
          uid: id,
          txId: id,
          coin: id,
          type: z.enum(['deposit', 'withdrawal']),
          subType: z.enum(['onchain', 'internal', 'fast']),
          amount: decimal,
          status: z.enum(['pending', 'fail', 'success']),
          ts: timestamp,
        }),
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
