/**
 * A plain text table: a header line, then one line per row, columns padded with spaces. No
 * borders or index column (console.table has both), so `grep`, `awk` and `cut` read it.
 */
export function plainTable(rows: readonly Record<string, string>[]): string {
  const first = rows[0];
  if (!first) return '';
  const columns = Object.keys(first);
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(columns), ...rows.map((row) => line(columns.map((column) => row[column] ?? '')))].join('\n');
}

/** Prints one JSON object on stdout: what every `--json` prints, and nothing else. */
export function printJson(value: object): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
