import { LOT_METHODS } from '../accounting/lots/lot-method.ts';
import { type Html, html } from './html.ts';

/**
 * The page speaks an accountant's words; the technical term (the exchange's, the file's) is kept
 * in a tooltip, so a question to the person who runs ledgerline can still name it exactly.
 */
export const plain = (words: string, term: string): Html => html`<abbr title="${term}">${words}</abbr>`;

/** The futures product types (the exchange's scopes) in words. */
const SCOPE_WORDS: Readonly<Record<string, string>> = {
  'USDT-FUTURES': 'USDT-margined futures',
  'USDC-FUTURES': 'USDC-margined futures',
  'COIN-FUTURES': 'coin-margined futures',
};

/** A stream's scope in words, its exchange name in the tooltip; an unknown scope as it is. */
export function scopeWords(scope: string): Html | string {
  const words = SCOPE_WORDS[scope];
  return words ? plain(words, scope) : scope;
}

/** The realized-gains methods as the form shows them: lot orders, then jurisdictions' filing rules. */
export const METHOD_GROUPS: ReadonlyArray<{ label: string; methods: ReadonlyArray<[string, string]> }> = [
  {
    label: 'Lots',
    methods: LOT_METHODS.map((m) => [m, m === 'average' ? 'average' : m.toUpperCase()] as [string, string]),
  },
  {
    label: 'Filing rules',
    methods: [
      ['uk', 'UK (HMRC share matching)'],
      ['de', 'Germany (§ 23 EStG)'],
    ],
  },
];
