import { beancountString } from './beancount-names.ts';

export interface Posting {
  readonly account: string;
  /** Exact decimal text, signed. */
  readonly amount: string;
  readonly currency: string;
  /** A total price (`@@`): the posting's weight is this amount, with the posting's sign. */
  readonly price?: { readonly amount: string; readonly currency: string };
}

/**
 * A beancount transaction: date, flag (`*` booked, `!` for an accountant to look at), narration,
 * metadata lines (key: "value") and postings, two spaces indented, and a blank line after it (to
 * read). Amounts are written as given: the caller passes exact decimal text, so nothing is rounded.
 */
export function transactionText(input: {
  day: string;
  flag: '*' | '!';
  narration: string;
  meta: readonly (readonly [string, string])[];
  postings: readonly Posting[];
}): string {
  const lines = [`${input.day} ${input.flag} ${beancountString(input.narration)}`];
  for (const [key, value] of input.meta) lines.push(`  ${key}: ${beancountString(value)}`);
  for (const p of input.postings) {
    const price = p.price ? ` @@ ${p.price.amount} ${p.price.currency}` : '';
    lines.push(`  ${p.account}  ${p.amount} ${p.currency}${price}`);
  }
  return `${lines.join('\n')}\n`;
}
