/**
 * Unix ms <-> timestamptz, exactly (to_timestamp goes through a double and
 * can be off by a millisecond), as in the coverage ledger's own queries.
 */
export const msParam = (n: number): string => `(timestamptz 'epoch' + $${n}::bigint * interval '1 millisecond')`;
export const toMs = (column: string): string => `(extract(epoch from ${column}) * 1000)::bigint::text`;
