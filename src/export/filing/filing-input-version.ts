import { createHash } from 'node:crypto';

import type pg from 'pg';

import { walkVersion } from '../../accounting/gains/gains-checkpoint-key.ts';
import { FILING_CURRENCY, type RulesMethod } from '../../accounting/gains/gains-method.ts';
import { taxYearOf } from '../../accounting/gains/tax-years.ts';
import { DEFAULT_TOLERANCE_MS } from '../../accounting/prices/memory-price-book.ts';
import type { ValuationSettings } from '../export-request.ts';

/**
 * Bump when what filing-summary.ts stores changes (its request, its rows' shape): figures stored
 * by the older code then stop matching any version and are recomputed.
 */
export const FILING_CODE_VERSION = 1;

/*
 * The input version of a method's filing figures: a string that changes whenever anything the
 * summary's walk reads changes, and that never comes back to an earlier value, so figures stored
 * under a version are the current figures exactly while the version read now is the same.
 *
 * - The gains change log (gains_input_change, gains-checkpoint-store.ts): every statement changing
 *   an input of a gains walk (records of every wallet, closed positions, prices, supplied costs and
 *   proceeds) adds a row of weight 1 in its own transaction; pruning replaces rows by one of their
 *   summed weight (gains-change-prune.ts). So the summed weight of the account's rows, and of the
 *   rows of every account (imported prices, TRUNCATE), only ever grows, and grows with each change.
 * - The supplied imports themselves (cost_basis_import, proceeds_import: every column, whatever
 *   columns later migrations add, withdrawal included): a withdrawal marks the import, and the
 *   walks ignore its figures (/work/wt/SUPPLIED.md); the fingerprint changes with it even if the
 *   withdrawal logs nothing.
 * - The code and the settings: the walk's version (gains-checkpoint-key.ts: code, rules, booking and
 *   treatment tables, money precision), FILING_CODE_VERSION, the currency and price tolerance.
 * - The tax year running now: a year that ends becomes `complete`, with no input changed.
 */

const READ = `
  SELECT (SELECT COALESCE(sum(weight), 0) FROM gains_input_change WHERE account_id = $1::uuid)::text AS own,
         (SELECT COALESCE(sum(weight), 0) FROM gains_input_change WHERE account_id IS NULL)::text AS shared,
         (SELECT md5(COALESCE(string_agg(to_jsonb(i)::text, ',' ORDER BY i.id), ''))
            FROM cost_basis_import i WHERE i.account_id = $1::uuid) AS costs,
         (SELECT md5(COALESCE(string_agg(to_jsonb(i)::text, ',' ORDER BY i.id), ''))
            FROM proceeds_import i WHERE i.account_id = $1::uuid) AS proceeds`;

const settingsVersions = new Map<string, string>();

/** The code and settings part of the version (hashed once per process and settings). */
function settingsVersion(method: RulesMethod, valuation: ValuationSettings | undefined): string {
  const settings = {
    filing: FILING_CODE_VERSION,
    walk: walkVersion(method),
    currency: FILING_CURRENCY[method],
    toleranceMs: valuation?.priceToleranceMs ?? DEFAULT_TOLERANCE_MS,
  };
  const text = JSON.stringify(settings);
  let version = settingsVersions.get(text);
  if (version === undefined) {
    version = createHash('sha256').update(text).digest('hex').slice(0, 12);
    settingsVersions.set(text, version);
  }
  return version;
}

/**
 * The version of the inputs of `method`'s filing figures of the account, read now (one statement:
 * one snapshot). Compare versions for equality only: a different one is always newer.
 */
export async function filingInputVersion(
  db: pg.Pool | pg.ClientBase,
  accountId: string,
  method: RulesMethod,
  valuation: ValuationSettings | undefined,
  nowMs: number,
): Promise<string> {
  const { rows } = await db.query<{ own: string; shared: string; costs: string; proceeds: string }>(READ, [accountId]);
  const read = rows[0]!;
  const supplied = createHash('sha256').update(`${read.costs}.${read.proceeds}`).digest('hex').slice(0, 12);
  return [settingsVersion(method, valuation), taxYearOf(method, nowMs), `${read.own}+${read.shared}`, supplied].join(
    '.',
  );
}
