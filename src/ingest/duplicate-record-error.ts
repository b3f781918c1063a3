import { PermanentError } from '../errors/index.ts';

/**
 * One page of the exchange held two different records under one natural key.
 * Storing either would silently drop the other, so the page (and its window)
 * fails instead, naming the key; the exchange must be asked again later.
 */
export class DuplicateRecordError extends PermanentError {
  /** `fields` the key's columns, `key` their values as `column=value, ...`. */
  constructor(table: string, fields: readonly string[], key: string) {
    super(`one page holds two different ${table} records with the key ${key}: neither is stored`, {
      code: 'DUPLICATE_RECORD',
      field: `${table}.${fields.join('+')}`,
      rule: 'a page must not hold two different records with one key',
    });
  }
}
