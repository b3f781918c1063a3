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

export interface RootLoggerOptions {
  level: string;
  /** Pretty output for people; defaults to whether stdout is a terminal. */
  pretty?: boolean;
  destination?: pino.DestinationStream;
}

/** JSON lines for machines; human-readable when a person is watching. */
export function createRootLogger(options: RootLoggerOptions): Logger {
  const pretty = options.pretty ?? Boolean(process.stdout.isTTY);
  const base = { level: options.level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  if (options.destination) return pino(base, options.destination);
  if (pretty) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { translateTime: 'UTC:isoDateTime' } } });
  }
  return pino(base);
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
