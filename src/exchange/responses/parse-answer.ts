import { z } from 'zod';

import { type ExchangeError, ExchangeNetworkError, MalformedResponseError } from '../errors/exchange-error.ts';
import { mapEnvelopeError } from '../errors/map-envelope-error.ts';
import { notingUnlisted, UNIX_MS } from './fields.ts';
import { collectDrift, noteDrift, type ShapeDrift } from './shape-drift.ts';

/**
 * The envelope: only `code` is core (it says whether `data` is an answer at all). `msg` is read
 * from `message` where an answer spells it so (documentation samples of batch-cancel-order, 2023-2025),
 * `requestTime` as a number or a numeric string (a documentation sample sends `"1627293504612"`);
 * either one absent or otherwise shaped is drift, never a refusal (docs/exchange-api.md §3.2).
 */
const envelope = notingUnlisted(
  ['code', 'msg', 'requestTime', 'data'],
  z.object({
    code: z.string(),
    msg: z.unknown().optional(),
    message: z.unknown().optional(),
    requestTime: z.unknown().optional(),
    data: z.unknown().optional(),
  }),
).transform(({ code, msg, message, requestTime, data }) => ({
  code,
  msg: messageOf(msg, message),
  requestTime: requestTimeOf(requestTime),
  data,
}));

function messageOf(msg: unknown, message: unknown): string {
  if (typeof msg === 'string') return msg;
  noteDrift('msg', msg === undefined || msg === null ? 'absent' : 'type');
  return typeof message === 'string' ? message : '';
}

function requestTimeOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (value === undefined || value === null) {
    noteDrift('requestTime', 'absent');
    return undefined;
  }
  noteDrift('requestTime', 'type');
  return typeof value === 'string' && UNIX_MS.test(value) ? Number(value) : undefined;
}

/**
 * A hand-written check of a schema's most frequent valid input (a history
 * page): it returns exactly what the schema would, or undefined whenever it is
 * not sure, and the schema then decides (and names the path at fault). About
 * ten times cheaper per record than the schema on a 2-core machine.
 */
export type FastPath<T> = (data: unknown) => T | undefined;

const fastPaths = new WeakMap<z.ZodType, FastPath<unknown>>();

/** Registers `fast` as the schema's fast path and returns the schema. */
export function withFastPath<S extends z.ZodType>(schema: S, fast: FastPath<z.output<S>>): S {
  fastPaths.set(schema, fast);
  return schema;
}

/** The fast path registered for a schema, if any (tests hold it to the schema). */
export function fastPathOf<S extends z.ZodType>(schema: S): FastPath<z.output<S>> | undefined {
  return fastPaths.get(schema) as FastPath<z.output<S>> | undefined;
}

export interface Answer<T> {
  data: T;
  /** The exchange's clock at the request, when it sent one. */
  requestTime: number | undefined;
  /** Where the answer's shape differed from the contract without harming the copy (empty: it did not). */
  drift: ShapeDrift[];
}

/**
 * Reads one HTTP answer into the endpoint's normalized data, or throws the
 * error class that decides what happens next: an envelope error code, a
 * truncated body (retryable) or a malformed answer naming the endpoint and the
 * path at fault (never an undefined further down).
 */
export function parseAnswer<S extends z.ZodType>(
  endpoint: string,
  httpStatus: number,
  body: string,
  dataSchema: S,
): Answer<z.output<S>> {
  const { value, drift } = collectDrift(() => readAnswer(endpoint, httpStatus, body, dataSchema));
  return { ...value, drift };
}

function readAnswer<S extends z.ZodType>(
  endpoint: string,
  httpStatus: number,
  body: string,
  dataSchema: S,
): Omit<Answer<z.output<S>>, 'drift'> {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (cause) {
    if (httpStatus === 429 || httpStatus >= 500)
      throw mapEnvelopeError(endpoint, httpStatus, String(httpStatus), 'no JSON body');
    // A body cut short (connection dropped mid-answer) is the usual reason; it is worth another try.
    throw truncated(endpoint, httpStatus, body, cause);
  }
  const parsedEnvelope = envelope.safeParse(json);
  if (!parsedEnvelope.success) {
    if (httpStatus === 429 || httpStatus >= 500) {
      throw mapEnvelopeError(endpoint, httpStatus, String(httpStatus), 'no envelope in the body');
    }
    throw malformed(endpoint, httpStatus, parsedEnvelope.error, []);
  }
  const { code, msg, requestTime, data } = parsedEnvelope.data;
  if (code !== '00000' || httpStatus !== 200) throw mapEnvelopeError(endpoint, httpStatus, code, msg);
  const fast = fastPaths.get(dataSchema)?.(data);
  if (fast !== undefined) return { data: fast as z.output<S>, requestTime };
  const parsedData = dataSchema.safeParse(data);
  if (!parsedData.success) throw malformed(endpoint, httpStatus, parsedData.error, ['data']);
  return { data: parsedData.data, requestTime };
}

function truncated(endpoint: string, httpStatus: number, body: string, cause: unknown): ExchangeError {
  return new ExchangeNetworkError({
    endpoint,
    code: 'TRUNCATED_BODY',
    msg: `the answer is not complete JSON (${body.length} characters received)`,
    httpStatus,
    cause,
    requestMayHaveBeenSent: true,
  });
}

function malformed(endpoint: string, httpStatus: number, error: z.ZodError, prefix: PropertyKey[]): ExchangeError {
  const issue = error.issues[0]!;
  const path = [...prefix, ...issue.path].reduce<string>((text, key) => {
    if (typeof key === 'number') return `${text}[${key}]`;
    return text === '' ? String(key) : `${text}.${String(key)}`;
  }, '');
  return new MalformedResponseError(endpoint, path, issue.message, httpStatus, error);
}
