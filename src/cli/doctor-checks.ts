import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

import { createRuntime } from '../../jobs/composition/create-runtime.ts';
import { assertExchangeAnswers } from '../app/services/exchange-answers.ts';
import type { Config } from '../config/config.ts';
import { DEVELOPMENT_MASTER_KEY } from '../config/env-schema.ts';
import { databaseName } from '../db/ensure-database.ts';
import { ServiceUnreachableError } from '../errors/index.ts';
import { ExchangeAuthError, ExchangeIpError, ExchangePermissionError } from '../exchange/index.ts';
import { checkServices, hostOf } from './check-services.ts';
import { EXIT, type ExitCode, exitCodeFor } from './exit-codes.ts';

/**
 * One line of `ledgerline doctor`: what was checked, its verdict and, when it is not ok, what
 * to do. `warn` is worth knowing and changes no exit code; `fail` decides it (`exit`).
 */
export interface DoctorCheck {
  check: string;
  status: 'ok' | 'warn' | 'fail' | 'skipped';
  detail: string;
  /** For a failure, the exit code it stands for (docs/cli.md: 3 unreachable or not ready, 1 failed). */
  exit?: ExitCode;
}

const failed = (check: string, error: unknown): DoctorCheck => ({
  check,
  status: 'fail',
  detail: error instanceof Error ? error.message : String(error),
  exit: exitCodeFor(error) === EXIT.unreachable ? EXIT.unreachable : EXIT.failed,
});

/**
 * Every check, in the order a person would fix them: the stores (Postgres, its migrations,
 * Redis), the master key, each account's exchange and credentials, then the tools only the
 * tests use. A check that needs one that failed is skipped, not failed twice.
 */
export async function runDoctorChecks(config: Config): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const postgres = await attempt('postgres', () => checkServices(config, ['postgres']));
  checks.push(postgres ?? { check: 'postgres', status: 'ok', detail: `${hostOf(config.databaseUrl, 5432)} answers` });
  const database = databaseName(config.databaseUrl);
  let migrated = false;
  if (postgres) checks.push(skipped('migrations', 'Postgres does not answer'));
  else {
    const verdict = await attempt('migrations', () => checkServices(config, ['postgres'], { migrated: true }));
    migrated = !verdict;
    checks.push(
      verdict ?? { check: 'migrations', status: 'ok', detail: `database ${database} is at this build's migrations` },
    );
  }
  const redis = await attempt('redis', () => checkServices(config, ['redis']));
  checks.push(redis ?? { check: 'redis', status: 'ok', detail: `${redisWhere(config)} answers` });
  checks.push(masterKey(config));
  if (!migrated || redis) {
    checks.push(skipped('accounts', `needs ${redis ? 'Redis' : 'the database'} first`));
  } else checks.push(...(await accountChecks(config)));
  checks.push(tool('chromium (tests)', chromiumFound(), 'apt-get install chromium (or give the tests CHROMIUM_PATH)'));
  checks.push(tool('bean-check (tests)', answers('bean-check', ['--version']), 'apt-get install beancount'));
  return checks;
}

/** The exit code of a doctor run: 3 when a store or an exchange cannot be used yet, 1 for any other failure. */
export function doctorExitCode(checks: readonly DoctorCheck[]): ExitCode {
  const exits = checks.filter((c) => c.status === 'fail').map((c) => c.exit ?? EXIT.failed);
  if (exits.includes(EXIT.unreachable)) return EXIT.unreachable;
  return exits.length > 0 ? EXIT.failed : EXIT.done;
}

async function attempt(check: string, probe: () => Promise<void>): Promise<DoctorCheck | undefined> {
  try {
    await probe();
    return undefined;
  } catch (error) {
    return failed(check, error);
  }
}

function skipped(check: string, why: string): DoctorCheck {
  return { check, status: 'skipped', detail: why };
}

function redisWhere(config: Config): string {
  if (config.redisClusterNodes.length === 0) return hostOf(config.redisUrl, 6379);
  return `cluster ${config.redisClusterNodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
}

/** Production refuses to start without a key of its own; elsewhere the published one is a warning. */
function masterKey(config: Config): DoctorCheck {
  if (config.masterKey.toString('hex') === DEVELOPMENT_MASTER_KEY) {
    return {
      check: 'master key',
      status: 'warn',
      detail:
        'the published development key seals the secrets: set LEDGERLINE_MASTER_KEY (openssl rand -hex 32) before real accounts',
    };
  }
  return { check: 'master key', status: 'ok', detail: 'LEDGERLINE_MASTER_KEY set' };
}

/**
 * Per enabled account: its secrets open with this master key, and its exchange answers one
 * signed read (no retry) and accepts the credentials.
 */
async function accountChecks(config: Config): Promise<DoctorCheck[]> {
  const runtime = createRuntime(config, { poolSize: 2 });
  try {
    const accounts = (await runtime.accounts.list()).filter((a) => a.disabledAt === null);
    if (accounts.length === 0) {
      return [{ check: 'accounts', status: 'warn', detail: 'none registered: ledgerline accounts add (docs/cli.md)' }];
    }
    const results: DoctorCheck[] = [];
    for (const account of accounts) {
      const check = `account ${account.name}`;
      try {
        await assertExchangeAnswers(runtime, account);
        results.push({ check, status: 'ok', detail: `${account.baseUrl} answers and accepts its credentials` });
      } catch (error) {
        results.push(accountFailure(check, error));
      }
    }
    return results;
  } finally {
    await runtime.close();
  }
}

function accountFailure(check: string, error: unknown): DoctorCheck {
  if (error instanceof ServiceUnreachableError) return failed(check, error);
  if (
    error instanceof ExchangeAuthError ||
    error instanceof ExchangePermissionError ||
    error instanceof ExchangeIpError
  ) {
    return {
      check,
      status: 'fail',
      detail: `the exchange refuses its credentials (${error.name}: ${error.code} ${error.msg}): ledgerline accounts update`,
      exit: EXIT.failed,
    };
  }
  return failed(check, error);
}

function tool(check: string, found: boolean, install: string): DoctorCheck {
  return found
    ? { check, status: 'ok', detail: 'found' }
    : { check, status: 'warn', detail: `not found; only the tests use it: ${install}` };
}

/**
 * Debian's package, where the browser tests look by default (test/http/browser.test.ts), or a
 * `chromium` on PATH. A browser elsewhere, named to the tests by CHROMIUM_PATH, shows as a warning.
 */
function chromiumFound(): boolean {
  return existsSync('/usr/bin/chromium') || answers('chromium', ['--version']);
}

function answers(command: string, args: string[]): boolean {
  const result = spawnSync(command, args, { stdio: 'ignore', timeout: 10_000 });
  return result.error === undefined && result.status === 0;
}
