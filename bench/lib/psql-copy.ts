import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * `psql \copy (query) TO 'out' WITH (FORMAT csv, HEADER)` in the session zone UTC, timed from
 * psql's start to its exit (its connection included, as the export's is). `query` must be one
 * line: \copy reads its command to the end of the line.
 */
export async function psqlCopy(
  databaseUrl: string,
  query: string,
  out: string,
): Promise<{ ms: number; bytes: number }> {
  if (query.includes('\n')) throw new Error('psql \\copy takes its query on one line');
  const started = performance.now();
  await run(
    'psql',
    [
      '-X',
      '-q',
      '-v',
      'ON_ERROR_STOP=1',
      '-d',
      databaseUrl,
      '-c',
      "SET TIME ZONE 'UTC'",
      '-c',
      `\\copy (${query}) TO '${out}' WITH (FORMAT csv, HEADER)`,
    ],
    { maxBuffer: 1 << 20 },
  );
  const ms = performance.now() - started;
  return { ms, bytes: (await stat(out)).size };
}
