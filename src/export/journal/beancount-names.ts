import { createHash } from 'node:crypto';

/**
 * Names and literals as beancount 2 (Debian's bean-check) accepts them.
 *
 * A currency is 1 to 24 characters: an upper-case letter first, then upper-case letters, digits
 * and ' . _ -, the last a letter or digit. An exchange coin that already is one keeps its name. Any
 * other (lower case, a leading digit as in 1INCH, other characters, too long) is mapped
 * deterministically: upper-cased, other characters turned into '-', an 'X' put in front when it
 * does not start with a letter, cut to 17 characters, then '-' and the first 6 hex digits (upper
 * case) of the coin's SHA-256: `1INCH` -> `X1INCH-<hash>`. The hash keeps two coins that differ
 * only in what was replaced (`btc` and `BTC`) apart. The journal declares each mapped coin with a
 * `commodity` directive whose `exchange_coin` metadata names the original.
 */
const CURRENCY = /^[A-Z](?:[A-Z0-9'._-]{0,22}[A-Z0-9])?$/;

export function beancountCurrency(coin: string): string {
  if (CURRENCY.test(coin)) return coin;
  let base = coin.toUpperCase().replace(/[^A-Z0-9'._-]/g, '-');
  if (!/^[A-Z]/.test(base)) base = `X${base}`;
  return `${base.slice(0, 17)}-${shortHash(coin)}`;
}

/**
 * An account name component for a currency: components allow letters, digits and '-' only, so a
 * currency holding ' . or _ has them turned into '-' and its hash appended (again to keep `A.B`
 * and `A-B` apart).
 */
export function accountComponent(currency: string): string {
  return /^[A-Z][A-Z0-9-]*$/.test(currency)
    ? currency
    : `${currency.replace(/[^A-Z0-9-]/g, '-')}-${shortHash(currency)}`;
}

/** A string literal: backslash and double quote escaped, line breaks and other controls as spaces. */
export function beancountString(value: string): string {
  // eslint-disable-next-line no-control-regex
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\u0000-\u001f\u007f]/g, ' ')}"`;
}

function shortHash(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 6).toUpperCase();
}
