import { PermanentError } from './ledgerline-error.ts';

/**
 * Bad input from a user, a config file or a caller: names the field, the rule
 * and (when it is not secret) the offending value. Raised before anything is
 * sent or written.
 */
export class ValidationError extends PermanentError {
  readonly value: unknown;

  constructor(field: string, rule: string, value?: unknown, cause?: unknown) {
    const shown = value === undefined ? '' : ` (got ${formatValue(value)})`;
    super(`${field}: ${rule}${shown}`, { code: 'VALIDATION', field, rule, cause });
    this.value = value;
  }
}

function formatValue(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
