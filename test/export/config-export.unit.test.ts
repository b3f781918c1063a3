import { describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/config.ts';
import { configError } from '../helpers/config-error.ts';

describe('web and monthly-export configuration', () => {
  it('has safe defaults: no token, loopback, no monthly exports', () => {
    const config = loadConfig({});
    expect(config.web).toEqual({
      token: undefined,
      adminToken: undefined,
      host: '127.0.0.1',
      port: 8080,
      trustProxy: false,
    });
    expect(config.monthlyExports).toEqual({ reports: [], tz: 'UTC', accounts: [] });
  });

  it('reads the token, port and monthly settings', () => {
    const token = 'x'.repeat(32);
    const config = loadConfig({
      LEDGERLINE_WEB_TOKEN: token,
      WEB_PORT: '9090',
      MONTHLY_EXPORT_REPORTS: 'spot-ledger, koinly,futures-summary',
      MONTHLY_EXPORT_TZ: 'Europe/Berlin',
      MONTHLY_EXPORT_ACCOUNTS: 'main,broker',
    });
    expect(config.web).toEqual({ token, adminToken: undefined, host: '127.0.0.1', port: 9090, trustProxy: false });
    expect(config.monthlyExports).toEqual({
      reports: ['spot-ledger', 'koinly', 'futures-summary'],
      tz: 'Europe/Berlin',
      accounts: ['main', 'broker'],
    });
  });

  it('names the variable and the rule for bad values', () => {
    expect(configError({ LEDGERLINE_WEB_TOKEN: 'too-short' }).message).toBe(
      'LEDGERLINE_WEB_TOKEN: must be at least 32 characters (openssl rand -hex 32)',
    );
    expect(
      configError({
        NODE_ENV: 'production',
        LEDGERLINE_MASTER_KEY: 'a3f1c2e4b5d6978812ab34cd56ef7890a1b2c3d4e5f60718293a4b5c6d7e8f90',
        LEDGERLINE_WEB_TOKEN: 'x'.repeat(31),
      }).field,
    ).toBe('LEDGERLINE_WEB_TOKEN');
    expect(configError({ WEB_PORT: '70000' }).field).toBe('WEB_PORT');
    expect(configError({ WEB_PORT: 'http' }).field).toBe('WEB_PORT');
    expect(configError({ MONTHLY_EXPORT_REPORTS: 'spot-ledger,balance' }).message).toMatch(
      /^MONTHLY_EXPORT_REPORTS: unknown report balance; one of spot-ledger, /,
    );
    expect(configError({ MONTHLY_EXPORT_TZ: 'Berlin' }).field).toBe('MONTHLY_EXPORT_TZ');
  });
});
