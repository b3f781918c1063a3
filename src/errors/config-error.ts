import { PermanentError } from './ledgerline-error.ts';

/** The environment does not hold a usable configuration. */
export class ConfigError extends PermanentError {
  constructor(variable: string, rule: string) {
    super(`${variable}: ${rule}`, { code: 'CONFIG_INVALID', field: variable, rule });
  }
}
