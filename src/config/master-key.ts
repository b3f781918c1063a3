import { ConfigError } from '../errors/index.ts';
import { DEVELOPMENT_MASTER_KEY } from './env-schema.ts';

const VARIABLE = 'LEDGERLINE_MASTER_KEY';
const RULE = 'must be 32 random bytes, written as 64 hex characters or as base64';

/**
 * Turns the configured master key into 32 bytes. Outside production a missing
 * key falls back to a published development key; in production a missing,
 * short, malformed or development key stops the process.
 */
export function parseMasterKey(raw: string | undefined, production: boolean): Buffer {
  if (raw === undefined || raw.trim() === '') {
    if (production) throw new ConfigError(VARIABLE, `is required in production; ${RULE}`);
    return Buffer.from(DEVELOPMENT_MASTER_KEY, 'hex');
  }
  const value = raw.trim();
  let key: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(value)) key = Buffer.from(value, 'hex');
  else if (/^[A-Za-z0-9+/]{43}=?$/.test(value)) key = Buffer.from(value, 'base64');
  if (key === undefined || key.length !== 32) throw new ConfigError(VARIABLE, RULE);
  if (production && key.equals(Buffer.from(DEVELOPMENT_MASTER_KEY, 'hex'))) {
    throw new ConfigError(VARIABLE, 'the development key must not be used in production');
  }
  if (production && new Set(key).size < 8) {
    throw new ConfigError(VARIABLE, 'is too weak (too few distinct bytes); generate it with `openssl rand -hex 32`');
  }
  return key;
}
