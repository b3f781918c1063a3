import { write } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { Writable } from 'node:stream';

import { ExportFileError } from './export-file-error.ts';

/** Opens a new file for writing; refused if it exists. (Tests give one whose writes fail: /dev/full.) */
export type OpenFile = (file: string) => Promise<FileHandle>;

export const openNewFile: OpenFile = (file) => open(file, 'wx');

/**
 * A stream into one export file whose own failures (a full disk, an I/O error) are
 * ExportFileErrors naming `finalName`: a failed write names no path, and an error that a pipeline
 * forwards into its sink (the database's, a report's refusal) must not pass for the file's.
 * Writes go through fs.write's callback on the descriptor, as fs.WriteStream's do (FileHandle's
 * promises cost a third more time per chunk).
 */
export function fileSink(handle: FileHandle, finalName: string): Writable {
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= handle.close());
  const failed = (error: unknown) => new ExportFileError('write', finalName, error as NodeJS.ErrnoException);
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      writeAll(handle.fd, chunk, 0, (error) => callback(error ? failed(error) : null));
    },
    // Chunks queued behind a write in flight go down in one call, as fs.WriteStream's writev does.
    writev(chunks, callback) {
      const data = Buffer.concat(chunks.map((c) => c.chunk as Buffer));
      writeAll(handle.fd, data, 0, (error) => callback(error ? failed(error) : null));
    },
    final(callback) {
      close().then(
        () => callback(),
        (error: unknown) => callback(failed(error)),
      );
    },
    destroy(error, callback) {
      close().then(
        () => callback(error),
        () => callback(error),
      );
    },
  });
}

/** Writes `text` as the whole content of a new file `temp`, failures named after `finalName`. */
export async function writeNewFile(openFile: OpenFile, temp: string, finalName: string, text: string): Promise<void> {
  const handle = await openFile(temp);
  try {
    const data = Buffer.from(text, 'utf8');
    await new Promise<void>((resolve, reject) =>
      writeAll(handle.fd, data, 0, (error) => (error ? reject(error) : resolve())),
    );
    await handle.close();
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw new ExportFileError('write', finalName, error as NodeJS.ErrnoException);
  }
}

// A write may take less than it was given (a disk filling up): the rest goes in the next call.
function writeAll(fd: number, data: Buffer, offset: number, done: (error: NodeJS.ErrnoException | null) => void) {
  write(fd, data, offset, data.length - offset, null, (error, written) => {
    if (error) done(error);
    else if (written <= 0) done(Object.assign(new Error('EIO: nothing written, write'), { code: 'EIO' }));
    else if (offset + written < data.length) writeAll(fd, data, offset + written, done);
    else done(null);
  });
}
