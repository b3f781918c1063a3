import { TransientError } from './ledgerline-error.ts';

/** A service ledgerline depends on, as an operator names it. */
export type ServiceName = 'Postgres' | 'Redis' | 'the exchange';

/**
 * A service did not answer (refused, timed out, or closed the connection).
 * Names the service, the variable that points at it and where it was looked
 * for, never a password; transient, because the service may come back.
 */
export class ServiceUnreachableError extends TransientError {
  readonly service: ServiceName;

  constructor(service: ServiceName, variable: string, where: string, reason: string, cause?: unknown) {
    super(`${service} at ${where} (${variable}) is unreachable: ${reason}`, {
      code: 'SERVICE_UNREACHABLE',
      field: variable,
      rule: `${service} must answer`,
      cause,
    });
    this.service = service;
  }
}
