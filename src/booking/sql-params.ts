/** Collects bind parameters while a query is assembled: `p.add(value)` returns its `$n`. */
export class SqlParams {
  readonly values: unknown[] = [];

  add(value: unknown, cast?: string): string {
    this.values.push(value);
    const ref = `$${this.values.length}`;
    return cast ? `${ref}::${cast}` : ref;
  }
}

/** The WHERE conditions every report shares: its account and its period, on the given time column. */
export function accountAndPeriod(
  p: SqlParams,
  params: { accountId: string; period: { start: Date; end: Date } },
  timeColumn: string,
  alias = '',
): string {
  const a = alias ? `${alias}.` : '';
  return [
    `${a}account_id = ${p.add(params.accountId, 'uuid')}`,
    `${a}${timeColumn} >= ${p.add(params.period.start.toISOString(), 'timestamptz')}`,
    `${a}${timeColumn} < ${p.add(params.period.end.toISOString(), 'timestamptz')}`,
  ].join(' AND ');
}
