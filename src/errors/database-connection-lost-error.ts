import { TransientError } from './ledgerline-error.ts';

/**
 * A job's database connection was lost under it (a Postgres restart, a failover,
 * `pg_terminate_backend`, a network cut): the work in flight is not done, nothing of it half-written
 * (each write is one transaction), and trying again on a new connection can succeed, so it is
 * retried with the queue's backoff. Its message keeps the driver's first line, never the URL.
 */
export class DatabaseConnectionLostError extends TransientError {
  constructor(reason: string, cause?: unknown) {
    super(`the database connection was lost mid-job (${reason}); the job is retried on a new connection`, {
      code: 'DATABASE_CONNECTION_LOST',
      field: 'DATABASE_URL',
      rule: 'Postgres must answer',
      cause,
    });
  }
}
