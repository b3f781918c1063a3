import { DateTime } from 'luxon';

import { isRulesMethod, type RulesMethod } from '../../accounting/gains/gains-method.ts';
import { TAX_YEAR_ZONE, taxYearsOf } from '../../accounting/gains/tax-years.ts';
import { ValidationError } from '../../errors/index.ts';

/** The `report` of a pack's job: the page lists it among the exports (job-view.ts names it). */
export const PACK_REPORT = 'tax-year-pack';

/** The tax year a pack covers: its label and its local dates (both included) in the method's zone. */
export interface PackYear {
  readonly method: RulesMethod;
  /** `2024-25` (uk) or `2024` (de). */
  readonly label: string;
  readonly from: string;
  /** The year's last day, or today while the year runs (as the tax years page shows it). */
  readonly to: string;
  readonly tz: string;
}

const LABEL: Readonly<Record<RulesMethod, RegExp>> = { uk: /^(\d{4})-\d{2}$/, de: /^(\d{4})$/ };
const LABEL_WORDS: Readonly<Record<RulesMethod, string>> = {
  uk: 'a UK tax year such as 2024-25',
  de: 'a calendar year such as 2024',
};

/** The method (uk or de) and tax year of a pack, checked: a typed error naming the field and the rule. */
export function parsePackYear(method: string | undefined, taxYear: string | undefined, nowMs: number): PackYear {
  if (method === undefined || !isRulesMethod(method as never)) {
    throw new ValidationError('method', 'must be uk or de (the tax-year pack follows a country’s rules)', method);
  }
  const rules = method as RulesMethod;
  const match = LABEL[rules].exec(taxYear ?? '');
  const tz = TAX_YEAR_ZONE[rules];
  const first = match ? Number(match[1]) : NaN;
  // The label's first year, in its zone: the year that holds 1 July of it is the one it names.
  const july = match ? DateTime.fromObject({ year: first, month: 7, day: 1 }, { zone: tz }).toMillis() : NaN;
  const year = first >= 2000 && first <= 9998 ? taxYearsOf(rules, july, july + 1)[0] : undefined;
  if (year === undefined || year.label !== taxYear) {
    throw new ValidationError('taxYear', `must be ${LABEL_WORDS[rules]}`, taxYear);
  }
  if (year.startMs > nowMs) throw new ValidationError('taxYear', 'must have begun (no figures yet)', taxYear);
  const lastDay = DateTime.fromMillis(Math.min(year.endMs - 1, nowMs), { zone: tz });
  return {
    method: rules,
    label: year.label,
    from: DateTime.fromMillis(year.startMs, { zone: tz }).toISODate()!,
    to: lastDay.toISODate()!,
    tz,
  };
}

/** `tax-year-pack_<method>_<year>` (`_PARTIAL` when the data does not cover the period). */
export function packBaseName(year: Pick<PackYear, 'method' | 'label'>, partial: boolean): string {
  return `tax-year-pack_${year.method}_${year.label}${partial ? '_PARTIAL' : ''}`;
}

/** One job per account, method and tax year: asking again while it runs is the same job. */
export function packJobId(accountId: string, year: Pick<PackYear, 'method' | 'label'>): string {
  return `pack.${accountId}.${year.method}.${year.label}`;
}
