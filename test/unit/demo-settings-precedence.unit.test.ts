import { describe, expect, it } from 'vitest';

import { layeredEnvironment } from '../../src/config/config.ts';

const demo = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/ledgerline_demo', QUEUE_PREFIX: 'ledgerline-demo' };
const dotEnv = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/books', LOG_LEVEL: 'warn' };

describe("the demo's settings file: environment, then .ledgerline-demo.env, then .env", () => {
  it('fills what the environment leaves unset, the demo before .env, and says which came from the demo', () => {
    const layered = layeredEnvironment({}, { dotEnv, demo });
    expect(layered.env).toMatchObject({ ...demo, LOG_LEVEL: 'warn' });
    expect(layered.fromDemo.sort()).toEqual(['DATABASE_URL', 'QUEUE_PREFIX']);
  });

  it('never overrides a variable set in the environment', () => {
    const layered = layeredEnvironment({ DATABASE_URL: 'postgresql://db.internal/real' }, { dotEnv, demo });
    expect(layered.env.DATABASE_URL).toBe('postgresql://db.internal/real');
    expect(layered.fromDemo).toEqual(['QUEUE_PREFIX']);
    expect(layered.filled).not.toContain('DATABASE_URL');
  });

  it('is ignored in production and in tests, whether NODE_ENV comes from the environment or .env', () => {
    for (const files of [
      { env: { NODE_ENV: 'production' }, dotEnv },
      { env: { NODE_ENV: 'test' }, dotEnv },
      { env: {}, dotEnv: { ...dotEnv, NODE_ENV: 'production' } },
    ]) {
      const layered = layeredEnvironment(files.env, { dotEnv: files.dotEnv, demo });
      expect(layered.fromDemo).toEqual([]);
      expect(layered.env.DATABASE_URL).toBe(dotEnv.DATABASE_URL);
    }
  });
});
