import { type Logger, pino } from 'pino';

import { getConfig } from '../config/config.ts';

export type { Logger } from 'pino';

// Field names whose values must never reach a log line, wherever they appear.
const REDACTED_PATHS = [
  'secret',
  'secretKey',
  'apiSecret',
  'passphrase',
  'password',
  'masterKey',
  '*.secret',
  '*.secretKey',
  '*.apiSecret',
  '*.passphrase',
  '*.password',
  '*.masterKey',
  'headers["access-sign"]',
  'headers["access-passphrase"]',
  'req.headers["access-sign"]',
  'req.headers["access-passphrase"]',
];

/**
 * What of an error reaches a log line: its class, message, code and stack, and the same of its
 * cause and (AggregateError) its errors. Never its other properties: pino's default copies them
 * all, and a pg-pool error carries the pool's `client` (connection parameters, the backend's
 * cancel key), an ioredis error its command, an HTTP error its request.
 */
export function serializeError(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  const error = value as { name?: unknown; message?: unknown; code?: unknown; stack?: unknown };
  const safe: Record<string, unknown> = {};
  if (typeof error.name === 'string') safe.type = error.name;
  if (typeof error.message === 'string') safe.message = error.message;
  if (typeof error.code === 'string' || typeof error.code === 'number') safe.code = error.code;
  if (typeof error.stack === 'string') safe.stack = error.stack;
  if (depth < 3 && value instanceof Error) {
    if (value.cause !== undefined) safe.cause = serializeError(value.cause, depth + 1);
    if (value instanceof AggregateError) safe.errors = value.errors.map((inner) => serializeError(inner, depth + 1));
  }
  return safe;
}

export interface RootLoggerOptions {
  level: string;
  /** Pretty output for people; defaults to whether stderr (where logs go) is a terminal. */
  pretty?: boolean;
  destination?: pino.DestinationStream;
}

/**
 * Logs go to stderr (fd 2) in every process, so that stdout carries only what a command prints
 * for its reader: `ledgerline status --json | jq` must never see a log line.
 */
export const LOG_FD = 2;

/** JSON lines for machines; human-readable when a person is watching. */
export function createRootLogger(options: RootLoggerOptions): Logger {
  const pretty = options.pretty ?? Boolean(process.stderr.isTTY);
  const base = {
    level: options.level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: { err: serializeError, error: serializeError },
  };
  if (options.destination) return pino(base, options.destination);
  if (pretty) {
    return pino({
      ...base,
      transport: {
        target: 'pino-pretty',
        options: { translateTime: "UTC:yyyy-mm-dd'T'HH:MM:ss.l'Z'", destination: LOG_FD },
      },
    });
  }
  // sync: a process that exits right after logging (a failed command) must not lose the line.
  return pino(base, pino.destination({ dest: LOG_FD, sync: true }));
}

let root: Logger | undefined;

export function setRootLogger(logger: Logger): void {
  root = logger;
}

/** The logger of one module: `logger('ingest')` logs with `{ module: 'ingest' }`. */
export function logger(module: string): Logger {
  root ??= createRootLogger({ level: getConfig().logLevel });
  return root.child({ module });
}
