import { LedgerlineError } from '../errors/index.ts';

/** What the export was doing with the file when the file system refused. */
export type FileAction = 'write' | 'create the directory';

// A full disk or too many open files may pass: a queued export is retried, as for a database down.
const PASSING = new Set(['ENOSPC', 'EDQUOT', 'EMFILE', 'ENFILE', 'EAGAIN', 'EBUSY', 'EINTR']);

/**
 * An export file could not be written: disk full, a read-only or forbidden directory, a file
 * where a directory should be, a directory where the file should be. Names the file the user
 * knows (never the temporary name) and the system's reason, in one line. Nothing was left under
 * that name (export-to-file.ts). Exit code 1, like any failed work.
 */
export class ExportFileError extends LedgerlineError {
  readonly retryable: boolean;
  readonly path: string;
  /** The system's error code: ENOSPC, EACCES, EROFS, EISDIR, ENOTDIR, ENOENT, ... */
  readonly errno: string;

  constructor(action: FileAction, file: string, cause: NodeJS.ErrnoException) {
    const errno = cause.code ?? 'EIO';
    super(`cannot ${action} ${file}: ${reasonOf(cause)} (${errno})`, { code: 'EXPORT_FILE', cause });
    this.retryable = PASSING.has(errno);
    this.path = file;
    this.errno = errno;
  }
}

/** An error of the file system (it names the file: `path`), as opposed to one of the database or network. */
export function isFileSystemError(error: unknown): error is NodeJS.ErrnoException & { path: string } {
  const e = error as NodeJS.ErrnoException | null;
  return (
    e instanceof Error && !(e instanceof LedgerlineError) && typeof e.code === 'string' && typeof e.path === 'string'
  );
}

/** An errno-shaped error for a refusal found without a failing call (a file where a directory should be). */
export function errnoError(code: string, reason: string, syscall: string, file: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${reason}, ${syscall} '${file}'`), { code, syscall, path: file });
}

// Node's message is `ENOSPC: no space left on device, write`: the words between the code and the call.
function reasonOf(cause: NodeJS.ErrnoException): string {
  return /^[A-Z0-9_]+: ([^,]+)/.exec(cause.message)?.[1] ?? cause.message;
}
