import type { Decimal } from 'decimal.js';

import type { LedgerEntry } from '../../booking/ledger-entry.ts';
import { minus, money, plus, ZERO } from '../lots/lot-arithmetic.ts';
import type { GainsEvent } from './gains-event.ts';
import type { LotSink, ValueOf } from './walk-history.ts';

const HALF = 0.5;

/**
 * A paired trade: disposes of what was sent and acquires what was received, both at one value V:
 * what the valuation-currency side was worth when there is one (the currency sent, fee included;
 * or the currency received, net of its fee), else the received coin's market value, else the sent
 * coin's; neither priced: unpriced. Fees paying the trade are allowable costs of it (HMRC
 * CRYPTO22150, TCGA92 s38(1)(a) and (c)):
 *
 * - a fee in the sent coin is disposed of with the trade (its lots' cost is in the cost basis, it
 *   brings no proceeds: the same gain as a disposal at market value with that value allowed);
 * - a fee in the received coin reduces the quantity acquired. Under `uk` (apportion) between two
 *   tokens, the fee's value F is apportioned half to each side (CRYPTO22150: the fee relates to the
 *   whole transaction, "apportioned between both assets on a just and reasonable basis"): disposal
 *   proceeds and acquisition cost are both N + F/2 where N is the net received's value. Otherwise
 *   the whole fee is charged to the disposal (proceeds = cost = N);
 * - a fee in a third coin (BGB `Transaction fee deduct`): that coin is disposed of at its market
 *   value F3, and F3 is an allowable cost of the trade: of the acquisition when the valuation
 *   currency was given, of the disposal when it was received, and between two tokens of the
 *   disposal, or under `uk` half of each.
 */
export async function* walkTrade<M>(
  entry: LedgerEntry,
  sides: { readonly sentCoin: string; readonly receivedCoin: string },
  engine: LotSink<M>,
  valueOf: ValueOf,
  currency: string,
  apportion: boolean,
): AsyncGenerator<GainsEvent<M>> {
  const { sentCoin, receivedCoin } = sides;
  const fee = entry.feeAmount ?? ZERO;
  const sent = plus(entry.sentAmount ?? ZERO, entry.feeCoin === sentCoin ? fee : ZERO);
  const received = minus(entry.receivedAmount ?? ZERO, entry.feeCoin === receivedCoin ? fee : ZERO);
  // The disposal's incidental costs (the fee's value charged to it), taken off its proceeds here:
  // the matches keep them apart so the filing figures show proceeds gross (uk-matching.ts).
  let incidental: Decimal | null = null;
  const receivedFee = entry.feeCoin === receivedCoin && fee.gt(ZERO);
  let value: Decimal | null;
  // Valued from the sent side (fee included): then a fee in the sent coin is in the proceeds already.
  let fromSent = false;
  if (sentCoin === currency) value = money(sent);
  else if (receivedCoin === currency) {
    value = money(received);
    if (receivedFee) incidental = money(fee);
  } else {
    const net = await valueOf(receivedCoin, received, entry.atMs);
    if (net !== null) {
      value = net.value;
      if (apportion && receivedFee) {
        const feeValue = await valueOf(receivedCoin, fee, entry.atMs);
        const half = feeValue === null ? null : money(feeValue.value.times(HALF));
        value = half === null ? null : money(plus(value, half));
        incidental = half === null || feeValue === null ? null : minus(feeValue.value, half);
      } else if (receivedFee && received.gt(ZERO)) {
        // The whole fee charged to the disposal: its value at the trade's own price.
        incidental = money(value.times(fee).div(received));
      }
    } else {
      // Only the sent side is priced: it was given for the gross received, of which the fee is a part.
      const gross = await valueOf(sentCoin, sent, entry.atMs);
      value = gross?.value ?? null;
      fromSent = true;
      if (value !== null && receivedFee && received.plus(fee).gt(ZERO)) {
        const feeShare = value.times(fee).div(received.plus(fee));
        const charged = money(apportion ? feeShare.times(HALF) : feeShare);
        value = minus(value, charged);
        incidental = charged;
      }
    }
  }
  // A fee in the sent coin: those coins go with the disposal, their value (at the trade's price) an
  // incidental cost of it (CRYPTO22150: tokens paying a fee are disposed of at market value).
  const sentAmount = entry.sentAmount ?? ZERO;
  const sentFee = entry.feeCoin === sentCoin && fee.gt(ZERO) && sentCoin !== currency;
  if (sentFee && !fromSent && value !== null && sentAmount.gt(ZERO)) {
    incidental = money(value.times(fee).div(sentAmount));
  }
  let proceeds = value;
  let cost = value;
  const third = entry.thirdFee;
  if (third !== null && third !== undefined && third.amount.gt(ZERO)) {
    const feeValue = (await valueOf(third.coin, third.amount, entry.atMs))?.value ?? null;
    // The third coin is disposed of at market value (CRYPTO22150: tokens used to pay a fee).
    for (const match of engine.dispose(third.coin, third.amount, feeValue, entry.atMs, third.recordIds)) {
      yield { kind: 'disposal', match };
    }
    if (feeValue === null) {
      proceeds = null;
      cost = null;
    } else {
      const toAcquisition =
        sentCoin === currency
          ? feeValue
          : receivedCoin === currency
            ? ZERO
            : apportion
              ? money(feeValue.times(HALF))
              : ZERO;
      const toDisposal = minus(feeValue, toAcquisition);
      if (proceeds !== null) proceeds = minus(proceeds, toDisposal);
      if (cost !== null) cost = plus(cost, toAcquisition);
      incidental = plus(incidental ?? ZERO, toDisposal);
    }
  }
  for (const match of engine.dispose(sentCoin, sent, proceeds, entry.atMs, entry.recordIds, incidental)) {
    yield { kind: 'disposal', match };
  }
  if (received.gt(ZERO)) engine.acquire(receivedCoin, received, cost, entry.atMs, entry.recordIds);
}
