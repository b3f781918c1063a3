import { describe, expect, it } from 'vitest';

import { ipAllowed, normalizeIp } from '../../src/simulator/auth/ip.ts';
import { verifySignature } from '../../src/simulator/auth/signature.ts';
import { SimClock } from '../../src/simulator/clock.ts';
import { ByteWriter } from '../../src/simulator/data/byte-writer.ts';
import { formatFixed } from '../../src/simulator/data/fixed.ts';
import { resolveScale } from '../../src/simulator/data/scale.ts';
import { Faults } from '../../src/simulator/faults.ts';
import { Rng } from '../../src/simulator/prng.ts';
import { signRequest } from './support/signer.ts';

describe('fixed-point text', () => {
  it.each([
    [0, '0'],
    [150_000_000, '1.5'],
    [-5, '-0.00000005'],
    [100_000_000, '1'],
    [-123_456_789_012, '-1234.56789012'],
    [9_007_199_254_740_991, '90071992.54740991'],
  ])('formats %d units as %s, the same in ByteWriter', (units, text) => {
    expect(formatFixed(units)).toBe(text);
    expect(new ByteWriter(4).fixed(units, 8).toBuffer().toString()).toBe(text);
  });

  it('agrees with ByteWriter on many random values, and grows its buffer', () => {
    const rng = new Rng(1, 'fixed');
    const writer = new ByteWriter(8);
    const expected: string[] = [];
    for (let i = 0; i < 2_000; i++) {
      const units = rng.int(-1e15, 1e15);
      expected.push(formatFixed(units));
      writer.fixed(units, 8).byte(32);
    }
    expect(writer.toBuffer().toString().trimEnd().split(' ')).toEqual(expected);
    expect(new ByteWriter(2).integer(1_781_524_800_000_123).toBuffer().toString()).toBe('1781524800000123');
  });

  it('writes integers of every length as String() does', () => {
    const rng = new Rng(2, 'integers');
    const values = [0, 1, 9, 10, 99, 100, 101, 999, 1000, Number.MAX_SAFE_INTEGER];
    for (let digits = 1; digits <= 15; digits++) {
      for (let i = 0; i < 50; i++) values.push(rng.int(10 ** (digits - 1), 10 ** digits - 1));
    }
    const writer = new ByteWriter(4);
    for (const value of values) writer.integer(value).byte(32);
    expect(writer.toBuffer().toString().trimEnd().split(' ')).toEqual(values.map(String));
  });
});

describe('signature verification', () => {
  const secret = 'c0ffee';
  const request = { timestamp: '1700000000000', method: 'GET', path: '/api/v2/tax/spot-record', rawBody: '' };

  it('accepts a signature over the raw query, and over its percent-decoded form', () => {
    const raw = 'coin=BTC&note=a%20b';
    const overRaw = signRequest(secret, `${request.timestamp}GET${request.path}?${raw}`);
    const overDecoded = signRequest(secret, `${request.timestamp}GET${request.path}?coin=BTC&note=a b`);
    expect(verifySignature(secret, { ...request, rawQuery: raw, signature: overRaw })).toBe(true);
    expect(verifySignature(secret, { ...request, rawQuery: raw, signature: overDecoded })).toBe(true);
    expect(verifySignature('other', { ...request, rawQuery: raw, signature: overRaw })).toBe(false);
  });

  it('signs POST bodies byte for byte and leaves out "?" without a query', () => {
    const body = '{"a":1}';
    const signature = signRequest(secret, `${request.timestamp}POST/x${body}`);
    expect(
      verifySignature(secret, { ...request, method: 'POST', path: '/x', rawQuery: '', rawBody: body, signature }),
    ).toBe(true);
    expect(
      verifySignature(secret, { ...request, method: 'POST', path: '/x', rawQuery: '', rawBody: '{"a": 1}', signature }),
    ).toBe(false);
  });

  it('survives a malformed percent sequence', () => {
    const signature = signRequest(secret, `${request.timestamp}GET/x?a=%E0%A4%A`);
    expect(verifySignature(secret, { ...request, path: '/x', rawQuery: 'a=%E0%A4%A', signature })).toBe(true);
  });
});

describe('ip whitelist', () => {
  it('treats IPv4-mapped IPv6 as IPv4, and an empty list as open', () => {
    expect(normalizeIp('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(ipAllowed(['127.0.0.1'], '::ffff:127.0.0.1')).toBe(true);
    expect(ipAllowed(['::1'], '127.0.0.1')).toBe(false);
    expect(ipAllowed([], '203.0.113.1')).toBe(true);
  });
});

describe('clock', () => {
  it('a frozen clock only moves when told', () => {
    const clock = new SimClock(1_000);
    expect([clock.now(), clock.advance(500), clock.set(10), clock.frozen]).toEqual([1_000, 1_500, 10, true]);
    expect(() => clock.set(-1)).toThrow(RangeError);
  });

  it('a running clock keeps running from where it was set', () => {
    const clock = new SimClock();
    const target = Date.now() + 86_400_000;
    clock.set(target);
    expect(clock.now() - target).toBeGreaterThanOrEqual(0);
    expect(clock.now() - target).toBeLessThan(1_000);
    expect(clock.frozen).toBe(false);
  });
});

describe('prng and scale', () => {
  it('the same seed and label give the same stream; another label another', () => {
    const draw = (seed: number, label: string) =>
      Array.from(
        { length: 5 },
        (
          (rng) => () =>
            rng.nextU32()
        )(new Rng(seed, label)),
      );
    expect(draw(42, 'a')).toEqual(draw(42, 'a'));
    expect(draw(42, 'a')).not.toEqual(draw(42, 'b'));
    expect(draw(42, 'a')).not.toEqual(draw(43, 'a'));
  });

  it('resolves named and numeric scales and rejects bad ones', () => {
    expect(resolveScale('bench').spotRecords).toBe(1_000_000);
    expect(resolveScale({ spotRecords: 20_000 }).bursts[0]).toBeGreaterThan(500);
    expect(() => resolveScale({ spotRecords: -1 })).toThrow(/scale.spotRecords/);
  });
});

describe('fault config', () => {
  it('rejects probabilities outside 0..1 and a bad applyThenReset', () => {
    const faults = new Faults();
    expect(() => faults.set({ http500: 2 })).toThrow(/faults.http500/);
    expect(() => faults.set({ applyThenReset: { path: '/x', count: 0 } })).toThrow(/applyThenReset/);
  });
});
