import pg from 'pg';
import { describe, expect, it } from 'vitest';

import { databaseFailure } from '../../src/cli/database-failure.ts';
import { DatabaseNotReadyError, ServiceUnreachableError } from '../../src/errors/index.ts';

const URL = 'postgresql://ledger:hunter2@db.internal:5432/ledgerline';

function pgError(code: string, message: string): pg.DatabaseError {
  return Object.assign(new pg.DatabaseError(message, message.length, 'error'), { code, severity: 'FATAL' });
}

function socketError(code: string, port: number): Error {
  return Object.assign(new Error(`connect ${code} 10.0.0.5:${port}`), { code, errno: -111, syscall: 'connect', port });
}

/** The shape Prisma's pg adapter gives a driver error: the pg error's gist under meta.driverAdapterError. */
function prismaError(code: string, cause: Record<string, unknown>): Error {
  const adapterError = Object.assign(new Error(String(cause.kind)), { name: 'DriverAdapterError', cause });
  return Object.assign(new Error('\nInvalid `prisma.account.findMany()` invocation:\n\n\nSomething failed'), {
    name: 'PrismaClientKnownRequestError',
    code,
    meta: { driverAdapterError: adapterError },
  });
}

describe('databaseFailure: Postgres lost or dropped while a command runs', () => {
  it.each([
    ['the server terminating the session', pgError('57P01', 'terminating connection due to administrator command')],
    ['a connection exception', pgError('08006', 'connection failure')],
    ['pg’s connection ending under a query', new Error('Connection terminated unexpectedly')],
    ['a refused reconnect', socketError('ECONNREFUSED', 5432)],
    ['the same, wrapped as a cause', new Error('sync failed', { cause: socketError('ECONNRESET', 5432) })],
    ['Prisma’s closed connection', prismaError('P1017', { kind: 'ConnectionClosed' })],
  ])('%s: ServiceUnreachableError naming Postgres and DATABASE_URL, never the password', (_name, error) => {
    const failure = databaseFailure(error, URL);
    expect(failure).toBeInstanceOf(ServiceUnreachableError);
    expect(failure?.toOneLine()).toMatch(
      /^ServiceUnreachableError: Postgres at db\.internal:5432 \(DATABASE_URL\) is unreachable: \S/,
    );
    expect(failure?.toOneLine()).not.toContain('hunter2');
  });

  it.each([
    ['pg’s 3D000', pgError('3D000', 'database "ledgerline" does not exist')],
    ['Prisma’s P1003', prismaError('P1003', { kind: 'DatabaseDoesNotExist', originalCode: '3D000', db: 'ledgerline' })],
  ])('the database dropped (%s): DatabaseNotReadyError naming `ledgerline migrate`', (_name, error) => {
    const failure = databaseFailure(error, URL);
    expect(failure).toBeInstanceOf(DatabaseNotReadyError);
    expect(failure?.message).toBe('database ledgerline does not exist: run `ledgerline migrate`');
  });

  it.each([
    ['a bug', new TypeError('x is undefined')],
    ['a constraint the work broke', pgError('23505', 'duplicate key value violates unique constraint')],
    [
      'a missing table (a bug or a schema changed under us, not a lost server)',
      pgError('42P01', 'relation "x" does not exist'),
    ],
    ['another server refusing (Redis)', socketError('ECONNREFUSED', 6379)],
    ['a Prisma error about the data', prismaError('P2002', { kind: 'UniqueConstraintViolation' })],
  ])('%s: left as it is', (_name, error) => {
    expect(databaseFailure(error, URL)).toBeUndefined();
  });
});
