import { PermanentError } from '../../errors/index.ts';
import { formatInstant } from '../time-arguments.ts';

/**
 * The window's whole range passed the exchange's horizon before it was read
 * (it waited too long: workers down, a long backlog, a failure retried late).
 * Its records are gone from the exchange; the window stays failed so that
 * reconciliation and `status` report the loss.
 */
export class WindowLostError extends PermanentError {
  constructor(windowId: string, end: number, readableFrom: number) {
    super(
      `sync window ${windowId} ends at ${formatInstant(end)}, but the exchange now serves only from ` +
        `${formatInstant(readableFrom)}: its records are lost`,
      {
        code: 'WINDOW_LOST',
        field: 'sync_window.window_end',
        rule: 'a window must be read before it passes the horizon',
      },
    );
  }
}
