import { readFileSync, renameSync, writeFileSync } from 'node:fs';

const DAY = 86_400_000;

/**
 * `--anchor-file`: the instant the history is laid out from, kept in a file so that a restarted
 * simulator (a compose service after a crash, a reboot or an upgrade) serves the history it served
 * before, whatever the day. The first start takes the start of its UTC day, as `--anchor today`
 * does, and writes it there; every later start reads it back. Deleting the file starts a new history.
 */
export function anchorFromFile(file: string, now: number): number {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const anchor = Math.floor(now / DAY) * DAY;
    // Written whole or not at all: a start killed mid-write must not leave half a number behind.
    writeFileSync(`${file}.tmp`, `${anchor}\n`);
    renameSync(`${file}.tmp`, file);
    return anchor;
  }
  const value = text.trim();
  if (!/^\d{1,15}$/.test(value)) {
    throw new RangeError(
      `anchor file ${file}: holds "${value}", not Unix milliseconds (delete it to start a new history)`,
    );
  }
  return Number(value);
}
