import {
  ExchangeAuthError,
  type ExchangeError,
  type ExchangeErrorDetails,
  ExchangeIpError,
  ExchangeNotFoundError,
  ExchangePermissionError,
  ExchangeRangeError,
  ExchangeRateLimitError,
  ExchangeRequestError,
  ExchangeServerError,
  ExchangeUnknownError,
} from './exchange-error.ts';

type ErrorClass = new (details: ExchangeErrorDetails) => ExchangeError;

// The catalogue of docs/exchange-api.md §3.3, code by code.
const BY_CODE: Readonly<Record<string, ErrorClass>> = {
  '40001': ExchangeAuthError,
  '40002': ExchangeAuthError,
  '40005': ExchangeAuthError,
  '40006': ExchangeAuthError,
  '40008': ExchangeAuthError,
  '40009': ExchangeAuthError,
  '40011': ExchangeAuthError,
  '40012': ExchangeAuthError,
  '40014': ExchangePermissionError,
  '40028': ExchangePermissionError,
  '40029': ExchangePermissionError,
  '40018': ExchangeIpError,
  '22010': ExchangeIpError,
  '40019': ExchangeRequestError,
  '40020': ExchangeRequestError,
  '40070': ExchangeRequestError,
  '40055': ExchangeRequestError,
  '40056': ExchangeRequestError,
  '40060': ExchangeRequestError,
  '40071': ExchangeRequestError,
  '40069': ExchangeRequestError,
  '40063': ExchangeRequestError,
  '40065': ExchangeNotFoundError,
  '40404': ExchangeNotFoundError,
  '00001': ExchangeRangeError,
  '40704': ExchangeRangeError,
  '40707': ExchangeRangeError,
  '429': ExchangeRateLimitError,
  '40015': ExchangeServerError,
};

/**
 * The error for a non-success envelope (or a bare HTTP error status). The HTTP
 * status wins for 429 and 5xx, whatever the code says, because those decide
 * whether a retry can help.
 */
export function mapEnvelopeError(endpoint: string, httpStatus: number, code: string, msg: string): ExchangeError {
  const details = { endpoint, code, msg, httpStatus };
  if (httpStatus === 429) return new ExchangeRateLimitError(details);
  if (httpStatus >= 500) return new ExchangeServerError(details);
  const Class = BY_CODE[code];
  if (Class) return new Class(details);
  if (httpStatus === 404) return new ExchangeNotFoundError(details);
  return new ExchangeUnknownError(details);
}
