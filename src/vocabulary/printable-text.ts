/**
 * Text from outside (an exchange's enum value, a record's field) printed to a terminal as it is
 * could move the cursor, clear the screen, recolour or reorder what follows (escape sequences,
 * C1 controls, bidirectional overrides) or fake a line of its own (a line break). Such characters
 * are shown as escapes instead: a tab as `\t`, ESC as `\x1b`, U+202E as `\u202e`. Everything else,
 * accents and other scripts included, is printed as it is.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => {
    const code = c.codePointAt(0)!;
    return (
      NAMED[c] ??
      (code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`)
    );
  });
}
