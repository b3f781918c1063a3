/** Postgres' "database does not exist": the server answered (enough for `migrate`, which creates it). */
export const UNDEFINED_DATABASE = '3D000';

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

/** What a failed database call says of the database: gone (with the first line of why), or dropped. */
export type DatabaseLoss = { kind: 'missing' } | { kind: 'lost'; reason: string };

/**
 * Whether `error` failed because of the database itself, not the work: the server or the
 * connection gone (`lost`), or the database dropped (`missing`); undefined for any other error.
 * Recognised from pg's, Node's and Prisma's errors alike, through their causes: each wraps the
 * others. A socket error names its port: one of another server (Redis, say) is not the
 * database's. Pure.
 */
export function databaseLoss(error: unknown, databaseUrl: string): DatabaseLoss | undefined {
  return find(error, portOf(databaseUrl), new Set());
}

function find(error: unknown, port: number, seen: Set<unknown>): DatabaseLoss | undefined {
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

/** The first line of why a connection failed, for a one-line message. */
export function reasonOf(error: unknown): string {
  // Node reports a refused dual-stack connection as an AggregateError with an empty message.
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0]);
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const message = error.message.split('\n')[0] ?? '';
    if (message) return message;
    if (typeof code === 'string') return code;
  }
  return String(error);
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
