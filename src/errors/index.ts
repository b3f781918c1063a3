export { LedgerlineError, PermanentError, TransientError } from './ledgerline-error.ts';
export type { LedgerlineErrorOptions } from './ledgerline-error.ts';
export { ValidationError } from './validation-error.ts';
export { ConfigError } from './config-error.ts';
export { SecretBoxError } from './secret-box-error.ts';
