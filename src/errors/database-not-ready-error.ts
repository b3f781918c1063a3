import { PermanentError } from './ledgerline-error.ts';

/**
 * Why the database cannot be used by this build: it does not exist, holds no migrations, or
 * has applied another set of migrations than this build ships (older: some not applied yet;
 * newer: one this build does not know).
 */
export type DatabaseState = 'missing' | 'not-migrated' | 'older' | 'newer';

const MIGRATE = 'run `ledgerline migrate`';

/**
 * The database answers but is not the one this build expects. The message ends with what fixes
 * it (`ledgerline migrate`, or an upgrade). Not retryable: nothing changes until an operator
 * acts; the CLI exits 3 for it all the same (the store is not ready; the same command succeeds
 * once it is), as the README's table says.
 */
export class DatabaseNotReadyError extends PermanentError {
  readonly state: DatabaseState;

  private constructor(state: DatabaseState, message: string, cause?: unknown) {
    super(message, { code: 'DATABASE_NOT_READY', rule: 'the database must be migrated to this build', cause });
    this.state = state;
  }

  static missing(database: string, cause?: unknown): DatabaseNotReadyError {
    return new DatabaseNotReadyError('missing', `database ${database} does not exist: ${MIGRATE}`, cause);
  }

  static notMigrated(database: string): DatabaseNotReadyError {
    return new DatabaseNotReadyError('not-migrated', `database ${database} is not migrated: ${MIGRATE}`);
  }

  static older(database: string, appliedLast: string, expectedLast: string): DatabaseNotReadyError {
    return new DatabaseNotReadyError(
      'older',
      `database ${database} is at migration ${appliedLast}, this build expects ${expectedLast}: ${MIGRATE}`,
    );
  }

  static skipped(database: string, missing: string): DatabaseNotReadyError {
    return new DatabaseNotReadyError('older', `database ${database} has not applied migration ${missing}: ${MIGRATE}`);
  }

  static newer(database: string, unknown: string, expectedLast: string): DatabaseNotReadyError {
    return new DatabaseNotReadyError(
      'newer',
      `database ${database} is at migration ${unknown}, newer than this build (which expects ${expectedLast}): upgrade ledgerline`,
    );
  }
}
