import { loadConfig } from '../../src/config/config.ts';
import { ConfigError } from '../../src/errors/index.ts';

/** The ConfigError an environment produces; fails the test if it loads or throws anything else. */
export function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}
