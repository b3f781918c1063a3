import { DECIMAL, UNIX_MS } from '../../exchange/responses/fields.ts';
import { withFastPath } from '../../exchange/responses/parse-answer.ts';
import { itemSchema } from '../kit/columns.ts';
import { pageList } from '../kit/page-list.ts';
import { spotColumns, type SpotLedgerRecord } from './columns.ts';

const spotRecordSchema = pageList(itemSchema(spotColumns));

/** An item with as many keys as the columns declares has no unlisted one (the eight are checked by name). */
const SPOT_FIELDS = Object.keys(spotColumns).length;

const TRADE_LEGS = new Set(spotColumns.bizOrderId.requiredFor.values.map((type) => type.toUpperCase()));

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
const decimalText = (value: unknown): value is string => typeof value === 'string' && DECIMAL.test(value);

// Spot pages are the bulk of a backfill: checked by hand first (the schema above, field by field,
// same output), and by the schema only when something is off, so its error names the field, or
// when the shape drifts (a field absent or unlisted), so the schema notes the drift.
// test/streams/stream-declarations.unit.test.ts checks this agrees with the columns, field by field.
export const spotRecordData = withFastPath(spotRecordSchema, (data) => {
  if (!Array.isArray(data)) return undefined;
  const records: SpotLedgerRecord[] = [];
  for (const item of data as unknown[]) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return undefined;
    const r = item as Record<string, unknown>;
    const { id: recordId, coin, spotTaxType, amount, fee, balance, bizOrderId, ts } = r;
    if (!nonEmpty(recordId) || !nonEmpty(coin) || !nonEmpty(spotTaxType)) return undefined;
    if (!decimalText(amount) || !decimalText(fee) || !decimalText(balance)) return undefined;
    if (typeof bizOrderId !== 'string') return undefined;
    // A trade leg without its order id: the schema refuses it, naming the field.
    if (bizOrderId === '' && TRADE_LEGS.has(spotTaxType.toUpperCase())) return undefined;
    let keys = 0;
    for (const _key in r) keys += 1;
    if (keys !== SPOT_FIELDS) return undefined;
    if (typeof ts !== 'string' || !UNIX_MS.test(ts)) return undefined;
    records.push({
      id: recordId,
      coin,
      spotTaxType,
      amount,
      fee,
      balance,
      bizOrderId,
      ts,
      raw: { ...r },
    });
  }
  return records;
});
