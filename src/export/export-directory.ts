import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';

import { errnoError, ExportFileError, isFileSystemError } from './export-file-error.ts';

/**
 * The directory an export writes into, and the temporary files it writes there first
 * (`<final name>.partial-<pid>-<random>`, renamed into place when complete).
 */

const TEMPORARY = /\.partial-\d+-[0-9a-f]{8}$/;
// Older than this, a temporary file belongs to an export that was killed: none runs for a day.
const STALE_MS = 24 * 3_600_000;

/** The suffix of one export's temporary files. */
export function temporarySuffix(): string {
  return `.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** `x.csv.partial-12-0a1b2c3d` -> `x.csv`: the name a temporary file stands for. */
export function finalNameOf(file: string): string {
  return file.replace(TEMPORARY, '');
}

/**
 * Creates `dir` and its missing parents. Not `mkdir({ recursive: true })`: under /proc it loops
 * for ever (mkdir answers ENOENT for a parent that exists), and where a file stands in the way
 * or the file system is read-only it reports EEXIST or ENOENT instead of the reason.
 */
export async function ensureDirectory(dir: string): Promise<void> {
  const found = await stat(dir).catch((error: unknown) => {
    if (isFileSystemError(error) && error.code === 'ENOENT') return undefined;
    throw asDirectoryError(error, dir);
  });
  if (found?.isDirectory()) return;
  if (found)
    throw new ExportFileError('create the directory', dir, errnoError('ENOTDIR', 'not a directory', 'mkdir', dir));
  const parent = path.dirname(dir);
  if (parent !== dir) await ensureDirectory(parent);
  try {
    await mkdir(dir);
  } catch (error) {
    // Another export made it meanwhile.
    if (isFileSystemError(error) && error.code === 'EEXIST' && (await stat(dir)).isDirectory()) return;
    throw asDirectoryError(error, dir);
  }
}

function asDirectoryError(error: unknown, dir: string): unknown {
  if (!isFileSystemError(error)) return error;
  return new ExportFileError('create the directory', dir, error);
}

/**
 * Refuses names that hold something other than a regular file (or a link): renaming the export
 * into place would replace it, and run as root that may be /dev/null or a FIFO another program reads.
 */
export async function refuseNonRegularFiles(files: readonly string[]): Promise<void> {
  for (const file of files) {
    const found = await lstat(file).catch(() => undefined);
    if (!found || found.isFile() || found.isSymbolicLink()) continue;
    throw new ExportFileError(
      'write',
      file,
      found.isDirectory()
        ? errnoError('EISDIR', 'illegal operation on a directory', 'rename', file)
        : errnoError('EEXIST', 'exists and is not a regular file', 'rename', file),
    );
  }
}

/**
 * Removes the temporary files in `dir` that a killed export left more than a day ago. Fresh ones
 * may be another export's, still being written. Best effort: what cannot be removed stays for
 * the next export. (The listing of exports reads `*.manifest.json` only, so these never show.)
 */
export async function removeStaleTemporaryFiles(dir: string): Promise<void> {
  // The files' times are the real clock's, whatever clock the export was given.
  const before = Date.now() - STALE_MS;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names.filter((n) => TEMPORARY.test(n))) {
    const file = path.join(dir, name);
    try {
      const info = await lstat(file);
      if (info.isFile() && info.mtimeMs < before) await rm(file, { force: true });
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
}
