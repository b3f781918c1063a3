import { ValidationError } from '../../errors/validation-error.ts';

/**
 * A request parameter breaks an input rule (docs/exchange-api.md §6). Raised
 * before anything is sent; names the endpoint, the field, the rule and the
 * value (secrets shown as [redacted]).
 */
export class RequestValidationError extends ValidationError {
  readonly endpoint: string;

  constructor(endpoint: string, field: string, rule: string, value?: unknown) {
    super(field, rule, value);
    this.endpoint = endpoint;
    this.message = `${endpoint}: ${this.message}`;
  }
}
