import { Decimal } from 'decimal.js';
import { DateTime } from 'luxon';
import type pg from 'pg';

import { coinBalances } from '../../accounting/balances/coin-balances.ts';
import { REVIEW_PREFIX, UNPAIRED_LEG } from '../../booking/entry-flags.ts';
import { bookingOf } from '../../booking/spot-bookings.ts';
import { beancountCurrency, beancountString } from './beancount-names.ts';
import { counterAccount, feeAccount, OPENING_BALANCES, spotAccount } from './journal-accounts.ts';
import { type JournalGroup, journalGroups, type JournalLeg } from './journal-groups.ts';
import { type Posting, transactionText } from './transaction-text.ts';

/** One directive (or the file's head) as text, and the manifest flag of the record(s) it books. */
export interface JournalEntry {
  readonly text: string;
  readonly flag: string | null;
}

export interface JournalOptions {
  readonly accountId: string;
  readonly accountName: string;
  /** The period's local days and zone, and its UTC bounds. */
  readonly period: { from: string; to: string; tz: string; start: Date; end: Date };
  readonly operatingCurrency: string;
}

// Sums of numeric(38,18)-sized amounts are exact far within 200 significant digits; toFixed never
// writes an exponent.
const Exact = Decimal.clone({ precision: 200 });
/** Balances are written with at least this many decimals (see padDecimals). */
const BALANCE_DECIMALS = 18;

/**
 * A beancount journal of the period (docs/reports.md, "beancount"), directive by directive:
 *
 * 1. options (title, operating currency), a `commodity` for each coin renamed for beancount;
 * 2. `open` for every account used, dated the day before the period;
 * 3. the opening balances (the exchange's, before the period) as one transaction from
 *    Equity:Opening-Balances that day, and a `balance` assertion per coin on the first day;
 * 4. one transaction per record, or per paired fill (trade-orders.ts) when its legs all lie in
 *    the period: the coin given `@@` the total received (or the reverse when the received coin is
 *    the operating currency), so it balances exactly; fees to Expenses:Exchange:Fees:<coin>;
 * 5. a `balance` assertion per coin the day after the period: the exchange's balance after its last
 *    record (checked first by the balances report's tie-out, which fails the export on a mismatch).
 *
 * Beancount checks a `balance` at the start of its date, before that day's transactions, and every
 * date here is a local date in the period's zone, so both assertions bracket exactly the period.
 */
export async function* beancountJournal(db: pg.ClientBase, options: JournalOptions): AsyncGenerator<JournalEntry> {
  const { period } = options;
  const window = { accountId: options.accountId, start: period.start, end: period.end };
  const balances = [];
  for await (const balance of coinBalances(db, window)) balances.push(balance);
  const dayBefore = DateTime.fromISO(period.from, { zone: 'UTC' }).minus({ days: 1 }).toISODate()!;
  const dayAfter = DateTime.fromISO(period.to, { zone: 'UTC' }).plus({ days: 1 }).toISODate()!;

  yield plain(
    [
      `; ledgerline beancount journal of ${oneLine(options.accountName)}, ${period.from} to ${period.to} (${period.tz}),`,
      `; records from ${period.start.toISOString()} to ${period.end.toISOString()} (exclusive); docs/reports.md`,
      `option "title" ${beancountString(`${options.accountName} ${period.from} to ${period.to}`)}`,
      `option "operating_currency" ${beancountString(options.operatingCurrency)}`,
      '',
    ].join('\n'),
  );
  const coins = new Set(balances.map((b) => b.coin));
  for (const coin of coins) {
    const currency = beancountCurrency(coin);
    if (currency !== coin) {
      yield plain(`${dayBefore} commodity ${currency}\n  exchange_coin: ${beancountString(coin)}`);
    }
  }

  const accounts = await accountsUsed(db, window);
  for (const coin of coins) accounts.add(spotAccount(beancountCurrency(coin)));
  const opening = balances.filter((b) => !isZero(b.opening));
  if (opening.length > 0) accounts.add(OPENING_BALANCES);
  for (const account of [...accounts].sort(byteOrder)) yield plain(`${dayBefore} open ${account}`);

  if (opening.length > 0) {
    // A coin with no stored record before the period: its opening is the balance before its first
    // stored record (the history starts after the account's), said so as the journal's own comment.
    const derived = opening.filter((b) => b.openingFromFirstRecord).map((b) => oneLine(b.coin));
    if (derived.length > 0) {
      yield plain(
        `; opening balance of ${derived.join(', ')} taken from the first stored record's balance: ` +
          'the stored history starts after the account',
      );
    }
    const postings: Posting[] = [];
    for (const b of opening) {
      const currency = beancountCurrency(b.coin);
      postings.push({ account: spotAccount(currency), amount: b.opening, currency });
      postings.push({ account: OPENING_BALANCES, amount: negate(b.opening), currency });
    }
    yield plain(
      transactionText({
        day: dayBefore,
        flag: '*',
        narration: `Opening balances: the exchange's balances before ${period.from} (${period.tz})`,
        meta: [],
        postings,
      }),
    );
  }
  for (const b of balances) yield plain(balanceText(period.from, b.coin, b.opening));

  for await (const group of journalGroups(db, window)) {
    yield group.paired ? pairedTransaction(group, options.operatingCurrency) : recordTransaction(group.legs[0]!);
  }

  for (const b of balances) yield plain(balanceText(dayAfter, b.coin, b.closing));
}

/** Every account the period's records book to, from their distinct kinds (not from the rows). */
async function accountsUsed(db: pg.ClientBase, window: { accountId: string; start: Date; end: Date }) {
  const { rows } = await db.query<{ coin: string; spotTaxType: string; incoming: boolean; fee: boolean }>(
    `SELECT DISTINCT coin, spot_tax_type AS "spotTaxType", amount >= 0 AS incoming, fee <> 0 AS fee
     FROM spot_record WHERE account_id = $1::uuid AND ts >= $2::timestamptz AND ts < $3::timestamptz`,
    [window.accountId, window.start.toISOString(), window.end.toISOString()],
  );
  const accounts = new Set<string>();
  for (const row of rows) {
    const currency = beancountCurrency(row.coin);
    accounts.add(counterAccount(bookingOf(row.spotTaxType).category, row.spotTaxType, currency, row.incoming));
    if (row.fee) accounts.add(feeAccount(currency));
  }
  return accounts;
}

/** A record booked alone: the spot account against the counter-account of its category. */
function recordTransaction(leg: JournalLeg): JournalEntry {
  const currency = beancountCurrency(leg.coin);
  const spot = spotAccount(currency);
  const postings: Posting[] = [];
  if (!isZero(leg.amount) || isZero(leg.fee)) {
    const counter = counterAccount(leg.category, leg.spotTaxType, currency, !leg.amount.startsWith('-'));
    postings.push(
      { account: spot, amount: leg.amount, currency },
      { account: counter, amount: negate(leg.amount), currency },
    );
  }
  postings.push(...feePostings(leg.coin, leg.fee));
  const flag =
    leg.category === 'unmapped'
      ? `spotTaxType=${leg.spotTaxType}`
      : leg.category === 'trade' && !leg.inPairedOrder
        ? UNPAIRED_LEG
        : leg.review
          ? `${REVIEW_PREFIX}${leg.spotTaxType}`
          : null;
  const text = transactionText({
    day: leg.day,
    flag: flag ? '!' : '*',
    narration: leg.spotTaxType,
    meta: meta([leg], leg.category),
    postings,
  });
  return { text, flag };
}

/** A paired fill or order: what was given against what was received, at their exact total price. */
function pairedTransaction(group: JournalGroup, operatingCurrency: string): JournalEntry {
  const given = group.legs.filter((l) => l.amount.startsWith('-'));
  const received = group.legs.filter((l) => !l.amount.startsWith('-'));
  const out = {
    coin: given[0]!.coin,
    currency: beancountCurrency(given[0]!.coin),
    sum: sum(given.map((l) => l.amount)),
  };
  const into = {
    coin: received[0]!.coin,
    currency: beancountCurrency(received[0]!.coin),
    sum: sum(received.map((l) => l.amount)),
  };
  // The price goes on the side that is not the operating currency: a sale for USDT reads
  // "-0.5 BTC @@ 15000 USDT", a purchase with USDT "0.5 BTC @@ 15000 USDT".
  const priceOnGiven = into.currency === operatingCurrency;
  const postings: Posting[] = [
    {
      account: spotAccount(out.currency),
      amount: out.sum,
      currency: out.currency,
      ...(priceOnGiven ? { price: { amount: into.sum, currency: into.currency } } : {}),
    },
    {
      account: spotAccount(into.currency),
      amount: into.sum,
      currency: into.currency,
      ...(priceOnGiven ? {} : { price: { amount: negate(out.sum), currency: out.currency } }),
    },
    ...feePostings(out.coin, sum(given.map((l) => l.fee))),
    ...feePostings(into.coin, sum(received.map((l) => l.fee))),
  ];
  const types = [...new Set(group.legs.map((l) => l.spotTaxType))].join(' / ');
  const text = transactionText({
    day: group.legs.reduce((day, l) => (l.day < day ? l.day : day), group.legs[0]!.day),
    flag: '*',
    narration: `${types}: ${out.coin} for ${into.coin}`,
    meta: meta(group.legs, 'trade'),
    postings,
  });
  return { text, flag: null };
}

function feePostings(coin: string, fee: string): Posting[] {
  if (isZero(fee)) return [];
  const currency = beancountCurrency(coin);
  return [
    { account: spotAccount(currency), amount: fee, currency },
    { account: feeAccount(currency), amount: negate(fee), currency },
  ];
}

function meta(legs: readonly JournalLeg[], category: string): [string, string][] {
  const entries: [string, string][] = [
    ['record_ids', legs.map((l) => l.recordId).join('+')],
    ['time_utc', legs[0]!.timeUtc],
    ['category', category],
  ];
  if (legs[0]!.bizOrderId !== '') entries.push(['biz_order_id', legs[0]!.bizOrderId]);
  return entries;
}

function balanceText(day: string, coin: string, amount: string): string {
  const currency = beancountCurrency(coin);
  return `${day} balance ${spotAccount(currency)}  ${padDecimals(amount)} ${currency}`;
}

function plain(text: string): JournalEntry {
  return { text, flag: null };
}

function sum(values: readonly string[]): string {
  return values.reduce((total, v) => total.plus(v), new Exact(0)).toFixed();
}

function negate(value: string): string {
  if (isZero(value)) return value.replace(/^-/, '');
  return value.startsWith('-') ? value.slice(1) : `-${value}`;
}

function isZero(value: string): boolean {
  return /^-?0*(\.0*)?$/.test(value);
}

/**
 * Zeros appended (never a digit dropped) up to BALANCE_DECIMALS and at least one beyond the value's
 * own: beancount lets a balance pass within twice half a unit of its last written digit, so the
 * assertion then fails on any difference in the exchange's digits.
 */
function padDecimals(value: string): string {
  const [whole, fraction = ''] = value.split('.');
  return `${whole}.${fraction.padEnd(Math.max(BALANCE_DECIMALS, fraction.length + 1), '0')}`;
}

function oneLine(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]/g, ' ');
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
