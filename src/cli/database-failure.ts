import type { Config } from '../config/config.ts';
import { databaseLoss } from '../db/connection-loss.ts';
import { databaseName } from '../db/ensure-database.ts';
import { DatabaseNotReadyError, LedgerlineError, ServiceUnreachableError } from '../errors/index.ts';
import { cannotWrite, DatabaseCannotWriteError } from '../ingest/coverage/storage-alarm.ts';
import { checkServices, DATABASE_CANNOT_WRITE, hostOf } from './check-services.ts';

/**
 * What a command that failed because of the database should say: the database as it is now.
 * The error itself only tells the moment it broke (dropping a database first ends its sessions,
 * so its commands see "terminating connection", not "does not exist"): the start-up probe asks
 * again, and its answer (unreachable, missing, not migrated) is the line. When the database
 * answers again, the line is the loss itself. undefined for an error that is not the database's.
 */
export async function explainDatabaseFailure(error: unknown, config: Config): Promise<LedgerlineError | undefined> {
  const failure = databaseFailure(error, config.databaseUrl);
  if (!failure) return undefined;
  try {
    await checkServices(config, ['postgres'], { migrated: true });
  } catch (now) {
    if (now instanceof LedgerlineError) return now;
  }
  return failure;
}

/**
 * A database call that failed because of the database itself, not the work: the server gone
 * mid-command (ServiceUnreachableError, exit 3, as when it is down at the start), the database
 * dropped under the command (DatabaseNotReadyError naming `ledgerline migrate`), or unable to
 * write (DatabaseCannotWriteError: a full disk, a read-only database). undefined for
 * any other error, which stays what it was (src/db/connection-loss.ts recognises them). Pure.
 */
export function databaseFailure(error: unknown, databaseUrl: string): LedgerlineError | undefined {
  // A full tablespace refuses the writes (53100) and, once its init file must be written again,
  // every new session: named as such, not as a server gone.
  const refused = cannotWrite(error);
  if (refused) return new DatabaseCannotWriteError(refused, error, DATABASE_CANNOT_WRITE);
  const finding = databaseLoss(error, databaseUrl);
  if (!finding) return undefined;
  if (finding.kind === 'missing') return DatabaseNotReadyError.missing(databaseName(databaseUrl), error);
  return new ServiceUnreachableError('Postgres', 'DATABASE_URL', hostOf(databaseUrl, 5432), finding.reason, error);
}
