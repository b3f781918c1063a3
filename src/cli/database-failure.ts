import type { Config } from '../config/config.ts';
import { databaseName } from '../db/ensure-database.ts';
import { DatabaseNotReadyError, LedgerlineError, ServiceUnreachableError } from '../errors/index.ts';
import { checkServices, hostOf, reasonOf, UNDEFINED_DATABASE } from './check-services.ts';

// Postgres' SQLSTATEs for a connection that is gone or refused: class 08 (connection exception),
// and the server shutting down, crashing or still starting (57P01-57P03).
const LOST_STATES = /^(08...|57P0[123])$/;
// Node's socket errors for a server that went away or cannot be reached.
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH']);
// What Prisma's pg adapter calls the same (meta.driverAdapterError.cause.kind), and Prisma's own codes.
const LOST_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout']);
const LOST_PRISMA_CODES = new Set(['P1001', 'P1002', 'P1017']);
// pg's own errors for a connection that ended under it carry no code, only these words.
const LOST_MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error',
  'timeout exceeded when trying to connect',
];

type Finding = { kind: 'missing' } | { kind: 'lost'; reason: string };

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
 * mid-command (ServiceUnreachableError, exit 3, as when it is down at the start) or the database
 * dropped under the command (DatabaseNotReadyError naming `ledgerline migrate`). undefined for
 * any other error, which stays what it was. Recognised from pg's, Node's and Prisma's errors
 * alike, through their causes: each wraps the others. Pure.
 */
export function databaseFailure(error: unknown, databaseUrl: string): LedgerlineError | undefined {
  const finding = find(error, portOf(databaseUrl), new Set());
  if (!finding) return undefined;
  if (finding.kind === 'missing') return DatabaseNotReadyError.missing(databaseName(databaseUrl), error);
  return new ServiceUnreachableError('Postgres', 'DATABASE_URL', hostOf(databaseUrl, 5432), finding.reason, error);
}

function find(error: unknown, port: number, seen: Set<unknown>): Finding | undefined {
  if (typeof error !== 'object' || error === null || seen.has(error)) return undefined;
  seen.add(error);
  const e = error as {
    code?: unknown;
    kind?: unknown;
    port?: unknown;
    message?: unknown;
    originalCode?: unknown;
    originalMessage?: unknown;
    cause?: unknown;
    errors?: unknown;
    meta?: { driverAdapterError?: unknown };
  };
  const code = typeof e.code === 'string' ? e.code : typeof e.originalCode === 'string' ? e.originalCode : undefined;
  const message =
    typeof e.originalMessage === 'string' ? e.originalMessage : typeof e.message === 'string' ? e.message : '';
  if (code === UNDEFINED_DATABASE || e.kind === 'DatabaseDoesNotExist' || code === 'P1003') return { kind: 'missing' };
  if (code !== undefined && LOST_STATES.test(code)) return { kind: 'lost', reason: reasonOf(error) };
  // A socket error of another server (Redis, say) is not the database's.
  if (code !== undefined && SOCKET_CODES.has(code) && (typeof e.port !== 'number' || e.port === port)) {
    return { kind: 'lost', reason: reasonOf(error) };
  }
  if (typeof e.kind === 'string' && LOST_KINDS.has(e.kind)) return { kind: 'lost', reason: e.kind };
  if (LOST_MESSAGES.some((words) => message.startsWith(words)))
    return { kind: 'lost', reason: message.split('\n')[0]! };
  const inner = [e.cause, e.meta?.driverAdapterError, ...(Array.isArray(e.errors) ? e.errors : [])];
  for (const next of inner) {
    const found = find(next, port, seen);
    if (found) return found;
  }
  // Prisma's code alone, when no cause said more.
  if (code !== undefined && LOST_PRISMA_CODES.has(code)) return { kind: 'lost', reason: lastLine(message) };
  return undefined;
}

function portOf(databaseUrl: string): number {
  try {
    return Number(new URL(databaseUrl).port || 5432);
  } catch {
    return 5432;
  }
}

function lastLine(text: string): string {
  return (
    text
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .at(-1) ?? 'connection lost'
  );
}
