import type { CoinsAwayMove } from '../accounting/gains/coins-away.ts';
import { FILING_CURRENCY, type RulesMethod } from '../accounting/gains/gains-method.ts';
import { ValidationError } from '../errors/index.ts';
import type { LackingDeposit, LackingProceeds } from './unknown-costs.ts';

/*
 * A page form's entry is stored as the canonical CSV it amounts to (SUPPLIED design: file name
 * `page form`), so it goes through exactly the validation, import and listing of an uploaded file
 * or `ledgerline cost-basis|proceeds import`, and its SHA-256 finds the same entry made twice.
 */

const METHODS: readonly RulesMethod[] = ['uk', 'de'];
export const PAGE_FORM = 'page form';

/** A CSV cell: quoted when it holds a comma, a quote or a line break (which the reader then refuses). */
const cell = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
const csv = (rows: readonly (readonly string[])[]) => `${rows.map((r) => r.map(cell).join(',')).join('\n')}\n`;

/** The form's typed fields (strings; absent ones undefined). */
export type FormFields = (name: string) => string | undefined;

/** An entry's amounts by currency, each given one (blank fields are no entry); none given is an error. */
function amounts(fields: FormFields, prefix: string, open: readonly RulesMethod[], words: string) {
  const given = open
    .map((m) => ({
      method: m,
      currency: FILING_CURRENCY[m],
      value: (fields(`${prefix}_${FILING_CURRENCY[m].toLowerCase()}`) ?? '').trim(),
    }))
    .filter((a) => a.value !== '');
  if (given.length === 0) {
    throw new ValidationError(words, `must be given in ${open.map((m) => FILING_CURRENCY[m]).join(' or ')}`);
  }
  return given;
}

/**
 * The cost-basis CSV of one arrival's form: per currency given, a lot of the quantity that lacks
 * a cost under that currency's method (recomputed on the server: the form names only the arrival),
 * acquired on the date given (00:00 UTC, at or before the arrival: a later lot would price nothing).
 * A lot names no record: the walk hands the coin's lots to its arrivals in order (SuppliedCosts),
 * so an earlier arrival of the coin still lacking a cost in that currency, at or after the date,
 * would take it; `before` (the arrivals ahead of this one in the walk's order) finds one, refused.
 */
export function costEntryCsv(
  deposit: LackingDeposit,
  fields: FormFields,
  before: readonly LackingDeposit[] = [],
): string {
  const open = METHODS.filter((m) => deposit.lacking[m] !== '0');
  if (open.length === 0) throw new ValidationError('deposit', 'already has a cost in GBP and EUR', deposit.recordId);
  const day = (fields('acquired_on') ?? '').trim();
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) throw new ValidationError('bought on', 'must be a date (yyyy-MM-dd)', day);
  if (Date.parse(`${day}T00:00:00Z`) > deposit.atMs) {
    throw new ValidationError('bought on', 'must be on or before the day the coins moved in', day);
  }
  const given = amounts(fields, 'cost', open, 'cost');
  const dayMs = Date.parse(`${day}T00:00:00Z`);
  for (const a of given) {
    const first = before.find((b) => b.coin === deposit.coin && b.atMs >= dayMs && b.lacking[a.method] !== '0');
    if (first !== undefined) {
      throw new ValidationError(
        'bought on',
        `an earlier arrival of ${first.coin} (${first.recordId}, ${new Date(first.atMs).toISOString()}) lacks a ` +
          `cost in ${a.currency} and would take this lot: supply its cost first, or a date after it`,
        day,
      );
    }
  }
  const rows = given.map((a) => [
    deposit.coin,
    deposit.lacking[a.method],
    day,
    a.value,
    a.currency,
    fields('source') ?? '',
    fields('note') ?? '',
  ]);
  return csv([['coin', 'quantity', 'acquired_at', 'cost', 'currency', 'source', 'note'], ...rows]);
}

/** The proceeds CSV of one P2P sale's form: a row per currency given that the sale still lacks. */
export function proceedsEntryCsv(sale: LackingProceeds, fields: FormFields): string {
  const supplied = sale.suppliedIn.split(',');
  const open = METHODS.filter((m) => !supplied.includes(FILING_CURRENCY[m]));
  const rows = amounts(fields, 'proceeds', open, 'proceeds').map((a) => [
    sale.recordId,
    a.value,
    a.currency,
    fields('source') ?? '',
    fields('note') ?? '',
  ]);
  return csv([['record_id', 'proceeds', 'currency', 'source', 'note'], ...rows]);
}

/**
 * The decisions CSV of one coins-away form (`ledgerline away-decision import` columns): the move
 * named by the form, its coin from the records; the decision, its date (00:00 UTC), the quantity
 * (blank: what of the move is still away), source and note as typed. The import checks the rest
 * as for a file (away-decision-import.ts: the move, the quantity moved, not before the move).
 */
export function awayEntryCsv(move: CoinsAwayMove, fields: FormFields): string {
  const quantity = (fields('quantity') ?? '').trim();
  return csv([
    ['record_id', 'coin', 'quantity', 'decision', 'decided_at', 'source', 'note'],
    [
      move.recordId,
      move.coin,
      quantity === '' ? move.quantity : quantity,
      (fields('decision') ?? '').trim(),
      (fields('decided_on') ?? '').trim(),
      fields('source') ?? '',
      fields('note') ?? '',
    ],
  ]);
}

/**
 * A row's message in the form's words: the canonical CSV's `line 2 cost` is the form's GBP or EUR
 * field (rows are written in the order the currencies were given).
 */
export function formMessage(message: string, csvText: string): string {
  const match = /^line (\d+) (\w+): (.*)$/.exec(message);
  if (match === null) return message;
  const row = csvText.split('\n')[Number(match[1]) - 1] ?? '';
  const currency = /,(GBP|EUR),/.exec(row)?.[1];
  return `${currency === undefined ? '' : `${currency} `}${match[2]!.replace('_', ' ')}: ${match[3]}`;
}
