import { describe, expect, it } from 'vitest';

import {
  ExchangeAuthError,
  ExchangeIpError,
  ExchangeNetworkError,
  ExchangeNotFoundError,
  ExchangePermissionError,
  ExchangeRangeError,
  ExchangeRateLimitError,
  ExchangeRequestError,
  ExchangeServerError,
  ExchangeUnknownError,
  MalformedResponseError,
} from '../../src/exchange/errors/exchange-error.ts';
import { subAccountApiKeyData } from '../../src/exchange/responses/account-responses.ts';
import { parseAnswer } from '../../src/exchange/responses/parse-answer.ts';
import { historyPositionData } from '../../src/streams/positions/response.ts';
import { spotRecordData } from '../../src/streams/spot/response.ts';
import { allSubDepositWithdrawalData } from '../../src/streams/transfers/response.ts';
import { fail, ok } from './helpers/fake-exchange.ts';

const position = {
  positionId: '900',
  symbol: 'BTCUSDT',
  marginCoin: 'USDT',
  holdSide: 'long',
  posMode: 'hedge_mode',
  openAvgPrice: '64000.123456789012345678',
  closeAvgPrice: '65000.5',
  marginMode: 'crossed',
  openTotalPos: '0.001',
  closeTotalPos: '0.001',
  pnl: '-1.000000000000000001',
  netProfit: '0.9',
  totalFunding: '0',
  openFee: '-0.01',
  closeFee: '-0.01',
};

describe('parseAnswer', () => {
  it('accepts ctime/utime and cTime/uTime alike and gives one shape', () => {
    const lower = parseAnswer(
      'historyPosition',
      200,
      ok({ list: [{ ...position, ctime: '1700000000000', utime: '1700000000001' }], endId: '900' }),
      historyPositionData,
    );
    const camel = parseAnswer(
      'historyPosition',
      200,
      ok({ list: [{ ...position, cTime: '1700000000000', uTime: '1700000000001' }], endId: '900' }),
      historyPositionData,
    );
    // One normalized shape; `raw` keeps each item as it was sent.
    const { raw: lowerRaw, ...lowerItem } = lower.data.list[0]!;
    const { raw: camelRaw, ...camelItem } = camel.data.list[0]!;
    expect(lowerItem).toEqual(camelItem);
    expect(lower.data.list[0]).toMatchObject({ cTime: '1700000000000', uTime: '1700000000001' });
    expect(lower.data.list[0]).not.toHaveProperty('ctime');
    expect(lowerRaw).toMatchObject({ ctime: '1700000000000', utime: '1700000000001' });
    expect(camelRaw).toMatchObject({ cTime: '1700000000000', uTime: '1700000000001' });
  });

  it('keeps amounts as the exact strings sent', () => {
    const { data } = parseAnswer(
      'historyPosition',
      200,
      ok({ list: [{ ...position, ctime: '1', utime: '2' }], endId: '900' }),
      historyPositionData,
    );
    expect(data.list[0]!.openAvgPrice).toBe('64000.123456789012345678');
    expect(data.list[0]!.pnl).toBe('-1.000000000000000001');
  });

  it('reads the deposit cursor from endId or from cursor', () => {
    const record = {
      uid: '1',
      txId: 't9',
      coin: 'USDT',
      type: 'deposit',
      subType: 'onchain',
      amount: '10',
      status: 'pending',
      ts: '1',
    };
    const a = parseAnswer(
      'allSubDepositWithdrawal',
      200,
      ok({ list: [record], endId: 't9' }),
      allSubDepositWithdrawalData,
    );
    const b = parseAnswer(
      'allSubDepositWithdrawal',
      200,
      ok({ list: [record], cursor: 't9' }),
      allSubDepositWithdrawalData,
    );
    expect(a.data.cursor).toBe('t9');
    expect(b.data).toEqual(a.data);
  });

  it("accepts a permission the spec does not list in a created key's answer (its secret must not be lost)", () => {
    const key = {
      subAccountUid: '7001',
      subAccountApiKey: 'bg_k',
      secretKey: 's3cr3t',
      permList: ['withdraw', 'read'],
      label: 'x',
      ipList: [],
    };
    const { data } = parseAnswer('createVirtualSubaccountApiKey', 200, ok(key), subAccountApiKeyData);
    expect(data).toMatchObject({ secretKey: 's3cr3t', permList: ['withdraw', 'read'] });
  });

  it('names the endpoint and the path of a malformed answer', () => {
    const badAmount = ok([
      { id: '1', coin: 'BTC', spotTaxType: 'Buy', amount: 0.1, fee: '0', balance: '1', bizOrderId: '', ts: '1' },
    ]);
    expect(() => parseAnswer('spotRecord', 200, badAmount, spotRecordData)).toThrow(MalformedResponseError);
    try {
      parseAnswer('spotRecord', 200, badAmount, spotRecordData);
    } catch (error) {
      expect((error as MalformedResponseError).endpoint).toBe('spotRecord');
      expect((error as MalformedResponseError).path).toBe('data[0].amount');
      expect((error as MalformedResponseError).retryable).toBe(false);
    }
    const noTimes = ok({ list: [position], endId: '900' });
    expect(() => parseAnswer('historyPosition', 200, noTimes, historyPositionData)).toThrow(/data.list\[0\].cTime/);
    // No msg is drift, not a refusal (msg is never read on 00000); no data is a refusal, naming it.
    expect(() => parseAnswer('spotRecord', 200, '{"code":"00000"}', spotRecordData)).toThrow(
      /spotRecord.*data: a list is required/,
    );
    expect(() => parseAnswer('spotRecord', 200, '{"msg":"success","data":[]}', spotRecordData)).toThrow(
      /spotRecord.*code/,
    );
  });

  it('reads a spot page by its fast path exactly as the schema reads it, and leaves every doubt to the schema', () => {
    const items: unknown[] = [
      { id: '2', coin: 'BTC', spotTaxType: 'Buy', amount: '-0.1', fee: '0', balance: '1', bizOrderId: '7', ts: '12' },
      { id: '1', coin: 'BTC', spotTaxType: 'New', amount: '+5', fee: '0.0', balance: '1.1', bizOrderId: null, ts: '1' },
      { id: '0', coin: 'X', spotTaxType: 'Deposit', amount: '1', fee: '0', balance: '1', ts: '1', extra: { a: 1 } },
    ];
    const fast = parseAnswer('spotRecord', 200, ok(items), spotRecordData).data;
    expect(fast).toEqual(spotRecordData.parse(items));
    expect(fast[0]!.raw).toEqual(items[0]);
    expect(fast[2]).toMatchObject({ bizOrderId: '', raw: { extra: { a: 1 } } });
    // Each of these the fast path must not accept: the schema answers, naming the field.
    const valid = items[0] as Record<string, unknown>;
    const wrong: [Record<string, unknown>, string][] = [
      [{ ...valid, id: '' }, 'data[0].id'],
      [{ ...valid, coin: 5 }, 'data[0].coin'],
      [{ ...valid, amount: '1e5' }, 'data[0].amount'],
      [{ ...valid, fee: 0 }, 'data[0].fee'],
      [{ ...valid, balance: undefined }, 'data[0].balance'],
      [{ ...valid, ts: '17000000000000000' }, 'data[0].ts'],
    ];
    for (const [item, path] of wrong) {
      const error = captured(() => parseAnswer('spotRecord', 200, ok([item]), spotRecordData));
      expect(error).toMatchObject({ path });
    }
    // bizOrderId pairs a trade's legs: core, so garbled it refuses the page, naming it (stored as '' it
    // would unpair the order); left out or empty on a trade leg (a Buy) it refuses the page too (issue
    // 43), on any other record it is the exchange's "no order" (''), counted as drift.
    expect(
      captured(() => parseAnswer('spotRecord', 200, ok([{ ...valid, bizOrderId: 7 }]), spotRecordData)),
    ).toMatchObject({ path: 'data[0].bizOrderId' });
    const { bizOrderId: _left, ...withoutOrder } = valid;
    for (const leg of [withoutOrder, { ...valid, bizOrderId: '' }, { ...withoutOrder, spotTaxType: 'sell' }]) {
      const refused = captured(() => parseAnswer('spotRecord', 200, ok([leg]), spotRecordData));
      expect(refused).toMatchObject({ path: 'data[0].bizOrderId' });
      expect((refused as Error).message).toMatch(/bizOrderId is required on a spotTaxType (Buy|sell) record/);
    }
    const deposit = { ...withoutOrder, spotTaxType: 'Deposit' };
    const absentOrder = parseAnswer('spotRecord', 200, ok([deposit]), spotRecordData);
    expect(absentOrder.data[0]).toMatchObject({ bizOrderId: '', raw: deposit });
    expect(absentOrder.drift).toEqual([{ field: 'bizOrderId', kind: 'absent', count: 1 }]);
    expect(captured(() => parseAnswer('spotRecord', 200, ok([null]), spotRecordData))).toMatchObject({
      path: 'data[0]',
    });
    expect(captured(() => parseAnswer('spotRecord', 200, ok(null), spotRecordData))).toMatchObject({ path: 'data' });
  });

  it('treats a body cut short as a retryable network error', () => {
    const body = ok([{ id: '1' }]).slice(0, 30);
    const error = captured(() => parseAnswer('spotRecord', 200, body, spotRecordData));
    expect(error).toBeInstanceOf(ExchangeNetworkError);
    expect((error as ExchangeNetworkError).code).toBe('TRUNCATED_BODY');
    expect((error as ExchangeNetworkError).retryable).toBe(true);
  });

  it.each([
    [400, '40009', 'sign signature error', ExchangeAuthError, false],
    [400, '40008', 'Request timestamp expired', ExchangeAuthError, false],
    [400, '40014', 'Incorrect permissions, need read permissions', ExchangePermissionError, false],
    [400, '40029', 'This account is not a Broker', ExchangePermissionError, false],
    [400, '40018', 'Invalid IP', ExchangeIpError, false],
    [400, '22010', 'Please bind ip whitelist address', ExchangeIpError, false],
    [400, '40020', 'Parameter limit error', ExchangeRequestError, false],
    [400, '40063', 'API exceeds the maximum limit added', ExchangeRequestError, false],
    [400, '00001', 'startTime and endTime interval cannot be greater than 30 days', ExchangeRangeError, false],
    [400, '40704', 'Can only check the data of the last three months', ExchangeRangeError, false],
    [400, '40065', 'This subApikey does not exist', ExchangeNotFoundError, false],
    [404, '40404', 'not found', ExchangeNotFoundError, false],
    [429, '429', 'Too Many Requests', ExchangeRateLimitError, true],
    [500, '40015', 'internal error', ExchangeServerError, true],
    [400, '12345', 'something new', ExchangeUnknownError, false],
  ] as const)('HTTP %i code %s → %s', (status, code, msg, Class, retryable) => {
    const error = captured(() => parseAnswer('spotRecord', status, fail(code, msg), spotRecordData));
    expect(error).toBeInstanceOf(Class);
    expect(error).toMatchObject({ code, msg, httpStatus: status, endpoint: 'spotRecord', retryable });
  });

  it('maps a bare 502 page without an envelope to a server error', () => {
    const error = captured(() => parseAnswer('spotRecord', 502, '<html>Bad gateway</html>', spotRecordData));
    expect(error).toBeInstanceOf(ExchangeServerError);
    expect((error as ExchangeServerError).httpStatus).toBe(502);
  });
});

function captured(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
