import { z } from 'zod';

/**
 * A history page's list is never read as "no records" unless it is a list: `data` or `data.list`
 * sent as null (or missing) on a 00000 answer is a MalformedResponseError, since only a well-formed
 * empty list ends a window (docs/exchange-api.md §5.1). Taking null for [] once ended windows early,
 * marked them done and hid their records until a refetch.
 */
export const pageList = <T extends z.ZodType>(item: T) =>
  z.array(item, {
    error: (issue) => (issue.input == null ? `a list is required, not ${String(issue.input)}` : undefined),
  });
