export { ConfigError } from './config-error.ts';
export { DatabaseConnectionLostError } from './database-connection-lost-error.ts';
export { DatabaseNotReadyError, type DatabaseState } from './database-not-ready-error.ts';
export type { LedgerlineErrorOptions } from './ledgerline-error.ts';
export { LedgerlineError, PermanentError, TransientError } from './ledgerline-error.ts';
export { SecretBoxError } from './secret-box-error.ts';
export { type ServiceName, ServiceUnreachableError } from './service-unreachable-error.ts';
export { ValidationError } from './validation-error.ts';
