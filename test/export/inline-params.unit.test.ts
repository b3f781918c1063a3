import { describe, expect, it } from 'vitest';

import { ValidationError } from '../../src/errors/index.ts';
import { inlineParams } from '../../src/export/inline-params.ts';

describe('inlineParams', () => {
  it('writes each value as the literal of the text node-postgres would send', () => {
    const sql = inlineParams('SELECT $1::uuid, $2::text[], $3, $10, $4, $5::boolean[], $6', [
      'a1',
      ['x', "o'k", 'q"\\'],
      5,
      new Date(Date.UTC(2026, 0, 1)),
      [true, false],
      null,
      'c',
      'd',
      'e',
      "it's",
    ]);
    expect(sql).toBe(
      `SELECT 'a1'::uuid,  E'{"x","o''k","q\\\\"\\\\\\\\"}'::text[], '5', 'it''s', '2026-01-01T00:00:00.000Z', '{"true","false"}'::boolean[], NULL`,
    );
  });

  it('leaves $n inside quoted literals alone and refuses a missing value', () => {
    expect(inlineParams("SELECT '$1 costs $2', $1", ['v'])).toBe("SELECT '$1 costs $2', 'v'");
    expect(() => inlineParams('SELECT $2', ['v'])).toThrow(ValidationError);
  });
});
