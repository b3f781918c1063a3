import { bracketOf, type CellKind, FORMULA_CHARACTERS, LEADING_WHITESPACE } from './neutralize.ts';

/**
 * neutralizeCell (neutralize.ts) as a SQL expression, so that `COPY ... (FORMAT csv)` writes the
 * very bytes the Node encoder writes:
 * - a text cell that starts, after any leading whitespace, with = + - @ tab CR or a full-width
 *   ＝＋－＠ gets a leading apostrophe;
 * - a decimal cell matching ^-?\d+(\.\d+)?$ is left alone, any other is treated as text;
 * - an empty string becomes NULL: COPY writes NULL as nothing but quotes an empty string (`""`),
 *   while csv-stringify writes both as nothing.
 * This runs on every cell of a million-row export, so the common cell must cost one cheap test:
 * `ascii()` (the first character's code point; 0 for '') looked up in a constant list. Only the
 * rare cells that start like a formula, with whitespace or are empty take the dearer tests.
 */
const SUSPECT_CODE_POINTS = [
  ...new Set([0, ...[...FORMULA_CHARACTERS, ...LEADING_WHITESPACE].map((c) => c.codePointAt(0)!)]),
]
  .sort((a, b) => a - b)
  .join(', ');

// The same pattern as neutralize.ts's FORMULA_START; \uXXXX escapes mean the same in Postgres' AREs.
const FORMULA_START = `'^${bracketOf(LEADING_WHITESPACE)}*${bracketOf(FORMULA_CHARACTERS)}'`;

// [0-9], not \d: Postgres' \d follows the locale and may match other scripts' digits; JavaScript's does not.
const PLAIN_NEGATIVE_DECIMAL = `'^-[0-9]+(\\.[0-9]+)?$'`;

/** The SQL expression of one output cell; `cell` is a text-valued column reference. */
export function neutralizeSql(cell: string, kind: CellKind): string {
  // A decimal starting like a formula stays as it is only as `-digits`: no other plain decimal starts so.
  const plain = kind === 'decimal' ? ` WHEN ${cell} ~ ${PLAIN_NEGATIVE_DECIMAL} THEN ${cell}` : '';
  return (
    `CASE WHEN ascii(${cell}) IN (${SUSPECT_CODE_POINTS}) ` +
    `THEN CASE WHEN ${cell} = '' THEN NULL${plain} WHEN ${cell} ~ ${FORMULA_START} THEN '''' || ${cell} ` +
    `ELSE ${cell} END ELSE ${cell} END`
  );
}
