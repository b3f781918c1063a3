import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { decimalText, decodeCoins, encodeCoins, type StoredCoin } from '../../src/accounting/gains/checkpoint-codec.ts';
import { LotEngine, type LotMatch } from '../../src/accounting/lots/lot-engine.ts';
import { LOT_METHODS, type LotMethod } from '../../src/accounting/lots/lot-method.ts';
import { ValidationError } from '../../src/errors/index.ts';

/**
 * A gains checkpoint must let a walk go on exactly as if it had never stopped. Random histories
 * over three coins, with costs of many digits (so every partial take rounds, and a HIFO heap's
 * top can drift below a child), unpriced lots, disposals beyond the holdings and withdrawals:
 * cut at a random step, the state stored (through the codec and JSON, as jsonb would) and
 * restored into a new engine, the rest of the history must give the same matches, digit for digit.
 */
type Step =
  | { kind: 'acquire'; coin: string; qty: string; cost: string | null }
  | { kind: 'dispose'; coin: string; qty: string; proceeds: string | null }
  | { kind: 'remove'; coin: string; qty: string };

const coin = fc.constantFrom('BTC', 'ETH', 'SOL');
// Up to 8 decimal places of quantity and 6 of cost: shares of them round at 10 places.
const amount = (places: number) =>
  fc
    .bigInt({ min: 1n, max: 10n ** BigInt(places + 3) })
    .map((n) => new Decimal(n.toString()).div(10 ** places).toFixed());
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('acquire' as const),
      coin,
      qty: amount(8),
      cost: fc.option(amount(6), { freq: 6 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('dispose' as const),
      coin,
      qty: amount(8),
      proceeds: fc.option(amount(6), { freq: 6 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), coin, qty: amount(8) }) },
);

function apply(engine: LotEngine, steps: readonly Step[], offset: number): string[] {
  const out: string[] = [];
  steps.forEach((s, i) => {
    const at = offset + i;
    const dec = (v: string | null) => (v === null ? null : new Decimal(v));
    if (s.kind === 'acquire') engine.acquire(s.coin, new Decimal(s.qty), dec(s.cost), at, `a${at}`);
    else if (s.kind === 'remove') out.push(`removed ${decimalText(engine.remove(s.coin, new Decimal(s.qty)))}`);
    else out.push(...engine.dispose(s.coin, new Decimal(s.qty), dec(s.proceeds), at, `d${at}`).map(matchText));
  });
  return out;
}

function matchText(m: LotMatch): string {
  const d = (v: Decimal | null) => (v === null ? 'null' : decimalText(v));
  return [
    m.coin,
    m.disposedAtMs,
    d(m.quantity),
    d(m.proceeds),
    d(m.costBasis),
    m.acquiredAtMs,
    m.lotRecordIds,
    m.beyondHoldings,
  ].join('|');
}

/** Through the codec and JSON text, as gains_lot_checkpoint stores it. */
function storedAndBack(method: LotMethod, engine: LotEngine): LotEngine {
  const snapshot = engine.snapshot();
  const rows = JSON.parse(JSON.stringify(encodeCoins(snapshot))) as StoredCoin[];
  return LotEngine.restore(method, 'USDT', decodeCoins(rows, snapshot.nextSeq));
}

describe('a lot engine restored from a checkpoint', () => {
  it('goes on exactly as the engine that never stopped, under every method', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...LOT_METHODS),
        fc.array(step, { minLength: 1, maxLength: 80 }),
        fc.nat(),
        (method, steps, cutAt) => {
          const cut = cutAt % (steps.length + 1);
          const whole = new LotEngine(method, 'USDT');
          const expected = apply(whole, steps, 0).slice(0);
          const before = new LotEngine(method, 'USDT');
          const head = apply(before, steps.slice(0, cut), 0);
          const snapshot = before.snapshot();
          const restored = storedAndBack(method, before);
          // The engine that was snapshotted goes on too: the snapshot must not share its lots.
          const continued = apply(before, steps.slice(cut), cut);
          const fromSnapshot = apply(LotEngine.restore(method, 'USDT', snapshot), steps.slice(cut), cut);
          const fromStore = apply(restored, steps.slice(cut), cut);
          expect([...head, ...continued]).toEqual(expected);
          expect([...head, ...fromSnapshot]).toEqual(expected);
          expect([...head, ...fromStore]).toEqual(expected);
          expect(encodeCoins(restored.snapshot())).toEqual(encodeCoins(whole.snapshot()));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('keeps a HIFO heap in its array order, which a partly taken lot can leave out of rank', () => {
    // 3 BTC for 300.0000000001 (100.0000000000333 each) rank above 1 BTC for 100.00000000002.
    // Taking 2 of the 3 costs 200.0000000001 (rounded up at 10 places), which leaves 1 BTC at
    // 100.0000000000: below the other lot now, yet still the heap's top, and so taken next.
    const engine = new LotEngine('hifo', 'USDT');
    engine.acquire('BTC', new Decimal(3), new Decimal('300.0000000001'), 1, 'high');
    engine.acquire('BTC', new Decimal(1), new Decimal('100.00000000002'), 2, 'low');
    engine.dispose('BTC', new Decimal(2), new Decimal(0), 3, 'x');
    const restored = storedAndBack('hifo', engine);
    expect(encodeCoins(restored.snapshot())[0]!.lots.map((l) => l.recordIds)).toEqual(['high', 'low']);
    const next = (e: LotEngine) => e.dispose('BTC', new Decimal(1), new Decimal(0), 4, 'y').map(matchText);
    const taken = next(restored);
    expect(taken).toEqual(next(engine));
    expect(taken).toEqual(['BTC|4|1|0|100|1|high|false']);
  });

  it('refuses a stored row that is not decimal text instead of walking from it', () => {
    const row: StoredCoin = { coin: 'BTC', position: 0, held: '1e3', pooledQuantity: '0', pooledCost: '0', lots: [] };
    expect(() => decodeCoins([row], 0)).toThrow(ValidationError);
    expect(() => decodeCoins([{ ...row, held: '1000' }], 0.5)).toThrow(/nextSeq/);
  });

  it('writes decimals exactly, without exponents, and keeps the sign of a negative zero', () => {
    expect(decimalText(new Decimal('1e-30'))).toBe('0.000000000000000000000000000001');
    expect(decimalText(new Decimal('123456789012345678901234567890.123456789'))).toBe(
      '123456789012345678901234567890.123456789',
    );
    expect(decimalText(new Decimal('-0'))).toBe('-0');
  });
});
