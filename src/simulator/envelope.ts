/**
 * The response envelope and the error catalogue of docs/exchange-api.md §3. Every
 * error the simulator answers with is an ApiError, so the HTTP status and the
 * exact code and message live in one place.
 */
export interface Envelope<T> {
  code: string;
  msg: string;
  requestTime: number;
  data: T | null;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly msg: string,
  ) {
    super(`${code} ${msg}`);
    this.name = 'ApiError';
  }
}

const bad = (code: string, msg: string) => new ApiError(400, code, msg);

export const errors = {
  missingKey: () => bad('40001', 'ACCESS_KEY cannot be empty'),
  missingSign: () => bad('40002', 'ACCESS_SIGN cannot be empty'),
  missingPassphrase: () => bad('40011', 'ACCESS_PASSPHRASE cannot be empty'),
  badTimestamp: () => bad('40005', 'Invalid ACCESS_TIMESTAMP'),
  unknownKey: () => bad('40006', 'Invalid ACCESS_KEY'),
  expired: () => bad('40008', 'Request timestamp expired'),
  badSign: () => bad('40009', 'sign signature error'),
  badPassphrase: () => bad('40012', 'apikey/password is incorrect'),
  permission: (perm: string) => bad('40014', `Incorrect permissions, need ${perm} permissions`),
  ipNotAllowed: () => bad('40018', 'Invalid IP'),
  ipNotBound: () => bad('22010', 'Please bind ip whitelist address'),
  missingParam: (name: string) => bad('40019', `Parameter ${name} cannot be empty`),
  invalidParam: (name: string) => bad('40020', `Parameter ${name} error`),
  passphraseRule: () => bad('40070', 'passphrase 8-32 characters with letters and numbers'),
  subNameRule: () => bad('40055', 'subName must be an English letter with a length of 8'),
  labelRule: () => bad('40056', 'remark must be length of 1 ~ 20'),
  nameTaken: () => bad('40060', 'subNames already exists'),
  nameDuplicated: () => bad('40071', 'subName exist duplication'),
  tooManySubs: () => bad('40069', 'The maximum number of sub-accounts created has been reached'),
  tooManyKeys: () => bad('40063', 'API exceeds the maximum limit added'),
  unknownSubKey: () => bad('40065', 'This subApikey does not exist'),
  notYourSub: () => bad('40028', 'This subUid does not belong to this account'),
  notBroker: () => bad('40029', 'This account is not a Broker, please apply to become a Broker first'),
  rangeTooLong: (days: number) => bad('00001', `startTime and endTime interval cannot be greater than ${days} days`),
  tooOld: () => bad('40704', 'Can only check the data of the last three months'),
  startAfterEnd: () => bad('40707', 'Start time is greater than end time'),
  rateLimited: () => new ApiError(429, '429', 'Too Many Requests'),
  notFound: () => new ApiError(404, '40404', 'Request URL NOT FOUND'),
  internal: () => new ApiError(500, '40015', 'System error'),
} as const;

export function successBody<T>(data: T, requestTime: number): string {
  return JSON.stringify({ code: '00000', msg: 'success', requestTime, data });
}

/** Everything of a success body before its data, for hot paths that write the data themselves (then close with '}'). */
export function successPrefix(requestTime: number): string {
  return `{"code":"00000","msg":"success","requestTime":${requestTime},"data":`;
}

export function errorBody(error: ApiError, requestTime: number): string {
  return JSON.stringify({ code: error.code, msg: error.msg, requestTime, data: null });
}
