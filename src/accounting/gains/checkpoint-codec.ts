import { Decimal } from 'decimal.js';

import { ValidationError } from '../../errors/index.ts';
import type { LotEngineState } from '../lots/lot-engine.ts';
import type { OpenLotsState } from '../lots/open-lots.ts';

/**
 * A lot engine's state as stored in gains_lot_checkpoint, and back: quantities and costs as
 * decimal text (never JS numbers), times and arrival numbers as integers. Decoding gives back
 * Decimals equal digit for digit, so a walk resumed from a stored state takes exactly the steps
 * the walk that stored it would have taken (test/accounting/gains-checkpoint-state.unit.test.ts).
 */
export interface StoredLot {
  readonly quantity: string;
  readonly cost: string | null;
  readonly acquiredAtMs: number;
  readonly recordIds: string;
  readonly seq: number;
  readonly unknownCost?: true;
  readonly review?: string;
}

/** One coin's row: its place among the engine's coins, its pools as text and its lots as JSON. */
export interface StoredCoin {
  readonly coin: string;
  readonly position: number;
  readonly held: string;
  readonly pooledQuantity: string;
  readonly pooledCost: string;
  readonly lots: readonly StoredLot[];
}

/** Exact decimal text, never exponent notation; keeps a negative zero's sign, which toFixed drops. */
export function decimalText(value: Decimal): string {
  return value.isZero() && value.isNegative() ? '-0' : value.toFixed();
}

export function encodeCoins(state: LotEngineState): StoredCoin[] {
  return state.coins.map(({ coin, lots }, position) => ({
    coin,
    position,
    held: decimalText(lots.held),
    pooledQuantity: decimalText(lots.pooledQuantity),
    pooledCost: decimalText(lots.pooledCost),
    lots: lots.lots.map((lot) => ({
      quantity: decimalText(lot.quantity),
      cost: lot.cost === null ? null : decimalText(lot.cost),
      acquiredAtMs: lot.acquiredAtMs,
      recordIds: lot.recordIds,
      seq: lot.seq,
      ...(lot.unknownCost ? { unknownCost: true as const } : {}),
      ...(lot.review !== undefined ? { review: lot.review } : {}),
    })),
  }));
}

/** The state back from its rows (in `position` order) and the engine's arrival counter. */
export function decodeCoins(coins: readonly StoredCoin[], nextSeq: number): LotEngineState {
  return {
    coins: coins.map((stored) => ({ coin: stored.coin, lots: decodeLots(stored) })),
    nextSeq: wholeNumber('nextSeq', nextSeq),
  };
}

function decodeLots(stored: StoredCoin): OpenLotsState {
  return {
    held: decimal('held', stored.held),
    pooledQuantity: decimal('pooledQuantity', stored.pooledQuantity),
    pooledCost: decimal('pooledCost', stored.pooledCost),
    lots: stored.lots.map((lot) => ({
      quantity: decimal('lots[].quantity', lot.quantity),
      cost: lot.cost === null ? null : decimal('lots[].cost', lot.cost),
      acquiredAtMs: wholeNumber('lots[].acquiredAtMs', lot.acquiredAtMs),
      recordIds: lot.recordIds,
      seq: wholeNumber('lots[].seq', lot.seq),
      ...(lot.unknownCost === true ? { unknownCost: true as const } : {}),
      ...(lot.review !== undefined ? { review: reviewFlag(lot.review) } : {}),
    })),
  };
}

// A stored row that is not what encodeCoins writes is refused rather than walked from.
function decimal(field: string, text: string): Decimal {
  if (typeof text !== 'string' || !/^-?\d+(\.\d+)?$/.test(text)) {
    throw new ValidationError(`gains_lot_checkpoint.${field}`, 'must be decimal text', text);
  }
  return new Decimal(text);
}

function reviewFlag(flag: string): string {
  if (typeof flag !== 'string' || !flag.startsWith('review:')) {
    throw new ValidationError('gains_lot_checkpoint.lots[].review', 'must be a review: flag', flag);
  }
  return flag;
}

function wholeNumber(field: string, value: number): number {
  if (!Number.isSafeInteger(value)) {
    throw new ValidationError(`gains_lot_checkpoint.${field}`, 'must be a whole number', value);
  }
  return value;
}
