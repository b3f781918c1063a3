import { ValidationError } from '../../errors/index.ts';

/** One bad row of a supplied file: the message of the first rule it breaks (`line 3 quantity: ...`). */
export interface RowProblem {
  readonly line: number;
  /** The field at fault (`line 3 quantity`), as the message starts. */
  readonly field: string;
  readonly message: string;
}

/** How many rows' messages the error's own one-line message quotes (the list holds them all). */
const QUOTED = 3;

/**
 * A supplied file with bad rows: one message per bad row, every row checked, nothing written.
 * With one bad row the message is that row's (`line 3 quantity: must be ...`); with more, the
 * count and the first few, and `problems` holds every one (the command prints each on its own
 * line, the page lists them).
 */
export class SuppliedRowsError extends ValidationError {
  readonly problems: readonly RowProblem[];

  constructor(problems: readonly RowProblem[]) {
    const first = problems[0]!;
    const single = problems.length === 1;
    const quoted = problems
      .slice(0, QUOTED)
      .map((p) => p.message)
      .join('; ');
    super(
      single ? first.field : 'file',
      single
        ? first.message.slice(first.field.length + 2)
        : `${problems.length} rows break the rules, nothing written: ${quoted}${problems.length > QUOTED ? '; ...' : ''}`,
    );
    this.problems = problems;
  }
}

/** The messages of a failed import, one per line: every bad row's, or the error's own. */
export function problemLines(error: ValidationError): string[] {
  return error instanceof SuppliedRowsError ? error.problems.map((p) => p.message) : [error.message];
}
