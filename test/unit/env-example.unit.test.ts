import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/config.ts';
import { envSchema } from '../../src/config/env-schema.ts';

const example = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');
/** The variables .env.example sets (commented-out lines are notes, not settings). */
const listed = Object.fromEntries(
  example
    .split('\n')
    .map((line) => /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => [match[1]!, match[2]!]),
);

describe('.env.example', () => {
  it('lists every variable the configuration reads, and no other', () => {
    expect(Object.keys(listed).sort()).toEqual(Object.keys(envSchema.shape).sort());
  });

  it('is a valid configuration as it stands (its values pass the same checks)', () => {
    expect(() => loadConfig({ ...listed })).not.toThrow();
  });
});
