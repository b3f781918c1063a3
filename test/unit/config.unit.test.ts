import { describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/config.ts';
import { DEVELOPMENT_MASTER_KEY } from '../../src/config/env-schema.ts';
import { configError } from '../helpers/config-error.ts';

const STRONG_KEY = 'a3f1c2e4b5d6978812ab34cd56ef7890a1b2c3d4e5f60718293a4b5c6d7e8f90';

describe('loadConfig', () => {
  it('gives local defaults for development', () => {
    const config = loadConfig({});
    expect(config.databaseUrl).toBe('postgresql://postgres@127.0.0.1:5432/ledgerline');
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(config.masterKey.toString('hex')).toBe(DEVELOPMENT_MASTER_KEY);
    expect(config.logLevel).toBe('info');
    expect(config.env).toBe('development');
  });

  it('accepts a production key as hex or base64', () => {
    expect(loadConfig({ NODE_ENV: 'production', LEDGERLINE_MASTER_KEY: STRONG_KEY }).masterKey.toString('hex')).toBe(
      STRONG_KEY,
    );
    const base64 = Buffer.from(STRONG_KEY, 'hex').toString('base64');
    expect(loadConfig({ NODE_ENV: 'production', LEDGERLINE_MASTER_KEY: base64 }).masterKey.toString('hex')).toBe(
      STRONG_KEY,
    );
  });

  it('names the variable and the rule for a malformed DATABASE_URL', () => {
    const error = configError({ DATABASE_URL: 'mysql://localhost/x' });
    expect(error.field).toBe('DATABASE_URL');
    expect(error.message).toMatch(/postgresql:\/\//);
    expect(configError({ DATABASE_URL: 'postgresql://localhost' }).message).toMatch(/must name a database/);
    expect(configError({ DATABASE_URL: 'not a url' }).field).toBe('DATABASE_URL');
  });

  it('refuses a missing, short, development or weak master key in production', () => {
    expect(configError({ NODE_ENV: 'production' }).message).toMatch(/LEDGERLINE_MASTER_KEY: is required in production/);
    expect(configError({ NODE_ENV: 'production', LEDGERLINE_MASTER_KEY: 'abcd1234' }).message).toMatch(
      /32 random bytes/,
    );
    expect(configError({ NODE_ENV: 'production', LEDGERLINE_MASTER_KEY: DEVELOPMENT_MASTER_KEY }).message).toMatch(
      /development key/,
    );
    expect(configError({ NODE_ENV: 'production', LEDGERLINE_MASTER_KEY: '00'.repeat(32) }).message).toMatch(/too weak/);
  });

  it('rejects a short key outside production too, rather than silently using it', () => {
    expect(configError({ LEDGERLINE_MASTER_KEY: 'short' }).field).toBe('LEDGERLINE_MASTER_KEY');
  });

  it('bounds an exchange answer at 16 MiB by default; EXCHANGE_MAX_ANSWER_BYTES is whole bytes from 1 MiB to 256 MiB', () => {
    expect(loadConfig({}).exchangeMaxAnswerBytes).toBe(16 * 1_048_576);
    expect(loadConfig({ EXCHANGE_MAX_ANSWER_BYTES: '33554432' }).exchangeMaxAnswerBytes).toBe(32 * 1_048_576);
    for (const bad of ['16MiB', '1.5', '1000', '300000000']) {
      const error = configError({ EXCHANGE_MAX_ANSWER_BYTES: bad });
      expect(error.field).toBe('EXCHANGE_MAX_ANSWER_BYTES');
      expect(error.message).toMatch(/whole number of bytes|at least 1048576|at most 268435456/);
    }
  });

  it('gives a request 30 s in all by default; EXCHANGE_DEADLINE_MS is whole ms up to 600000 and at least EXCHANGE_TIMEOUT_MS', () => {
    expect(loadConfig({}).exchangeDeadlineMs).toBe(30_000);
    expect(loadConfig({ EXCHANGE_TIMEOUT_MS: '1000', EXCHANGE_DEADLINE_MS: '2000' }).exchangeDeadlineMs).toBe(2_000);
    for (const bad of ['30s', '1.5', '100', '700000']) {
      expect(configError({ EXCHANGE_DEADLINE_MS: bad }).field).toBe('EXCHANGE_DEADLINE_MS');
    }
    const below = configError({ EXCHANGE_TIMEOUT_MS: '20000', EXCHANGE_DEADLINE_MS: '10000' });
    expect(below.field).toBe('EXCHANGE_DEADLINE_MS');
    expect(below.message).toMatch(/at least EXCHANGE_TIMEOUT_MS \(20000\)/);
  });

  it('rejects unknown log levels and bad redis URLs', () => {
    expect(configError({ LOG_LEVEL: 'loud' }).field).toBe('LOG_LEVEL');
    expect(configError({ REDIS_URL: 'http://127.0.0.1:6379' }).field).toBe('REDIS_URL');
  });

  it('values in USDT within 36 h by default; takes a tolerance in ms or as an ISO-8601 duration without months', () => {
    expect(loadConfig({}).valuation).toEqual({ currency: 'USDT', priceToleranceMs: 36 * 3_600_000, coinsAwayDays: 90 });
    expect(loadConfig({ VALUATION_CURRENCY: ' eur ', PRICE_TOLERANCE: 'P1DT30M' }).valuation).toEqual({
      currency: 'EUR',
      priceToleranceMs: 24 * 3_600_000 + 30 * 60_000,
      coinsAwayDays: 90,
    });
    expect(loadConfig({ PRICE_TOLERANCE: '90000' }).valuation.priceToleranceMs).toBe(90_000);
    expect(loadConfig({ PRICE_TOLERANCE: 'P1W' }).valuation.priceToleranceMs).toBe(7 * 24 * 3_600_000);
    for (const bad of ['P1M', 'P1Y', '36h', '-5', 'P400D', '']) {
      expect(configError({ PRICE_TOLERANCE: bad }).field).toBe('PRICE_TOLERANCE');
    }
    expect(configError({ VALUATION_CURRENCY: 'US-D' }).field).toBe('VALUATION_CURRENCY');
  });

  // Issue 42 item 4: how long coins may stay away before they are flagged is a stated setting.
  it('flags coins away after COINS_AWAY_DAYS whole days (90 by default, 1 to 3660)', () => {
    expect(loadConfig({ COINS_AWAY_DAYS: '30' }).valuation.coinsAwayDays).toBe(30);
    for (const bad of ['0', '3661', '1.5', 'ninety']) {
      expect(configError({ COINS_AWAY_DAYS: bad }).field).toBe('COINS_AWAY_DAYS');
    }
  });
});
