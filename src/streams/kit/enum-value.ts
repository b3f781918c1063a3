/**
 * Maps a value the spec lists onto its enum; anything else becomes `unknown`
 * and the field's name is added to `unmapped`, so the row is stored and
 * flagged (the original value stays in `raw`), never dropped.
 */
export function enumValue<T extends string>(
  allowed: readonly T[],
  value: string,
  field: string,
  unmapped: string[],
): T | 'unknown' {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  unmapped.push(field);
  return 'unknown';
}
