import { PermanentError } from '../errors/index.ts';

/** Where the two records were met: both in one page, or on two pages of one read of a window. */
export type DuplicateScope = 'page' | 'read';

/**
 * The exchange sent two different records under one natural key, in one page
 * or on two pages of one read of a window. Storing the second would silently
 * drop the first (or the other way round), so the page (and its window) fails
 * instead, naming the key; the exchange must be asked again later. A record
 * that a later read finds changed is no such error: it is an update, kept in
 * record_revision.
 */
export class DuplicateRecordError extends PermanentError {
  /** `fields` the key's columns, `key` their values as `column=value, ...`. */
  constructor(table: string, fields: readonly string[], key: string, scope: DuplicateScope = 'page') {
    super(
      scope === 'page'
        ? `one page holds two different ${table} records with the key ${key}: neither is stored`
        : `a later page of one read repeats the ${table} key ${key} with other content: ` +
            'the record stored first is kept, the page is not stored',
      {
        code: 'DUPLICATE_RECORD',
        field: `${table}.${fields.join('+')}`,
        rule:
          scope === 'page'
            ? 'a page must not hold two different records with one key'
            : 'one read of a window must not hold two different records with one key',
      },
    );
  }
}
