import { describe, expect, it } from 'vitest';

import { layeredEnvironment } from '../../src/config/config.ts';

const demo = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/ledgerline_demo', QUEUE_PREFIX: 'ledgerline-demo' };
const dotEnv = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/books', LOG_LEVEL: 'warn' };

describe("the demo's settings file: environment, then .ledgerline-demo.env, then .env", () => {
  it('fills what the environment leaves unset when no DATABASE_URL is configured, and says which came from the demo', () => {
    const layered = layeredEnvironment({}, { dotEnv: { LOG_LEVEL: 'warn' }, demo });
    expect(layered.env).toMatchObject({ ...demo, LOG_LEVEL: 'warn' });
    expect(layered.fromDemo.sort()).toEqual(['DATABASE_URL', 'QUEUE_PREFIX']);
  });

  it("applies to the demo's own database: the environment naming it still gets the demo's other settings", () => {
    const layered = layeredEnvironment({ DATABASE_URL: demo.DATABASE_URL }, { dotEnv: {}, demo });
    expect(layered.fromDemo).toEqual(['QUEUE_PREFIX']);
    expect(layered.filled).not.toContain('DATABASE_URL');
  });

  it('never reaches an installation configured with another database, in the environment or in .env', () => {
    const leaky = { ...demo, EXPORT_DIR: '/tmp/demo-exports', LEDGERLINE_WEB_TOKEN: 'x'.repeat(40) };
    for (const [env, files] of [
      [{ DATABASE_URL: 'postgresql://db.internal/real' }, { dotEnv: {}, demo: leaky }],
      [{}, { dotEnv, demo: leaky }],
    ] as const) {
      const layered = layeredEnvironment(env, files);
      expect(layered.fromDemo).toEqual([]);
      expect(layered.env.EXPORT_DIR).toBeUndefined();
      expect(layered.env.LEDGERLINE_WEB_TOKEN).toBeUndefined();
      expect(layered.env.QUEUE_PREFIX).toBeUndefined();
    }
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
