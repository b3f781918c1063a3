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
    super(`${service} at ${where} (${variable}) is unreachable: ${reason}${fixFor(service, where, variable)}`, {
      code: 'SERVICE_UNREACHABLE',
      field: variable,
      rule: `${service} must answer`,
      cause,
    });
    this.service = service;
  }
}

/**
 * What to do about it, as the line's last words: a store is started (or the variable pointed at
 * one that runs); the exchange is not ours to start, so its line ends with the reason.
 */
function fixFor(service: ServiceName, where: string, variable: string): string {
  if (service === 'the exchange') return '';
  return `; start ${service} at ${where} or set ${variable} to one that runs`;
}
