import { z } from 'zod';

import { DECIMAL, decimal, id, keepingRaw, listedValue, optionalId, rawItem, timestamp, UNIX_MS } from './fields.ts';
import { withFastPath } from './parse-answer.ts';

// A history page's list is never read as "no records" unless it is a list: `data` or `data.list`
// sent as null (or missing) on a 00000 answer is a MalformedResponseError, since only a well-formed
// empty list ends a window (docs/exchange-api.md §5.1). Taking null for [] once ended windows early,
// marked them done and hid their records until a refetch.
const pageList = <T extends z.ZodType>(item: T) =>
  z.array(item, {
    error: (issue) => (issue.input == null ? `a list is required, not ${String(issue.input)}` : undefined),
  });

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
    list: pageList(keepingRaw(positionItem)),
    endId: optionalId,
  })
  .transform((data) => ({ list: data.list, endId: data.endId }));

const spotRecordSchema = pageList(
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
);

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
const decimalText = (value: unknown): value is string => typeof value === 'string' && DECIMAL.test(value);

// Spot pages are the bulk of a backfill: checked by hand first (the schema above, field by field,
// same output), and by the schema only when something is off, so its error names the field.
export const spotRecordData = withFastPath(spotRecordSchema, (data) => {
  if (!Array.isArray(data)) return undefined;
  const records: z.output<typeof spotRecordSchema> = [];
  for (const item of data as unknown[]) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return undefined;
    const r = item as Record<string, unknown>;
    const { id: recordId, coin, spotTaxType, amount, fee, balance, bizOrderId, ts } = r;
    if (!nonEmpty(recordId) || !nonEmpty(coin) || !nonEmpty(spotTaxType)) return undefined;
    if (!decimalText(amount) || !decimalText(fee) || !decimalText(balance)) return undefined;
    if (bizOrderId !== undefined && bizOrderId !== null && typeof bizOrderId !== 'string') return undefined;
    if (typeof ts !== 'string' || !UNIX_MS.test(ts)) return undefined;
    records.push({
      id: recordId,
      coin,
      spotTaxType,
      amount,
      fee,
      balance,
      bizOrderId: bizOrderId ?? '',
      ts,
      raw: { ...r },
    });
  }
  return records;
});

// The cursor is data.endId on the live exchange and data.cursor in the field table: both accepted.
export const allSubDepositWithdrawalData = z
  .object({
    list: pageList(
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
    ),
    endId: optionalId,
    cursor: optionalId,
  })
  .transform((data) => ({ list: data.list, cursor: data.endId ?? data.cursor }));

export type HistoryPositionPage = z.output<typeof historyPositionData>;
export type Position = HistoryPositionPage['list'][number];
export type SpotRecord = z.output<typeof spotRecordData>[number];
export type AllSubDepositWithdrawalPage = z.output<typeof allSubDepositWithdrawalData>;
export type DepositWithdrawalRecord = AllSubDepositWithdrawalPage['list'][number];
