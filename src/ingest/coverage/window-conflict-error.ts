import { TransientError } from '../../errors/index.ts';

/**
 * The window's stored cursor is not the one this page continued from:
 * another worker advanced it (a stalled job picked up twice). The page is
 * rolled back; the retry resumes from the stored cursor.
 */
export class WindowConflictError extends TransientError {
  constructor(windowId: string) {
    super(`sync window ${windowId} was advanced by another worker; resuming from its stored cursor`, {
      code: 'WINDOW_CONFLICT',
      field: 'sync_window.cursor',
      rule: 'a page must continue from the stored cursor',
    });
  }
}
