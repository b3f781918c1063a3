import type { ManagementRequest } from '../generated/prisma/client.ts';

/**
 * How a step whose answer was lost came to its end, as run-step decided it from the recorded
 * requests. The operator reads it as the action's resolution; all of that wording is in
 * `describeSettlement`, so the decisions in run-step hold no prose and the texts are read in one place.
 * `rows` are the step's recorded requests at the moment of the decision, oldest first.
 */
export type Settlement =
  /**
   * A request after the lost one succeeded. `by` is the recovery that sent it in this run; it is
   * absent when an earlier run's success was found recorded.
   */
  | { kind: 'recovered'; rows: readonly ManagementRequest[]; by?: { purpose: 'repeat' | 'probe'; why: string } }
  /** No safe way to learn the lost request's outcome: nothing was repeated. */
  | { kind: 'unrecoverable'; rows: readonly ManagementRequest[]; why: string }
  /** The probe was refused because the name exists now: proof of nothing either way. */
  | { kind: 'name-exists'; rows: readonly ManagementRequest[]; why: string; exists: string; probe: ManagementRequest }
  /** Every recovery request allowed lost its answer too. */
  | {
      kind: 'recovery-lost';
      rows: readonly ManagementRequest[];
      purpose: 'repeat' | 'probe';
      tries: number;
      why: string;
    }
  /**
   * A repeat or probe was refused, which says nothing about the lost request. `seq` is named when
   * the refusal was found recorded by an earlier run.
   */
  | {
      kind: 'recovery-refused';
      rows: readonly ManagementRequest[];
      purpose: string;
      code: string | null;
      message: string | null;
      seq?: number;
    };

const NOT_TELLING = 'which does not tell whether the lost request took effect';

/** The operator's text for a settlement: the action's resolution line for this step. */
export function describeSettlement(settlement: Settlement): string {
  const lost = lostAnswer(settlement.rows);
  switch (settlement.kind) {
    case 'recovered': {
      const last = settlement.rows.at(-1)!;
      const succeeded = `${lost}; request ${last.seq} (${last.purpose}) succeeded`;
      const by = settlement.by;
      if (!by) return succeeded;
      const why =
        by.purpose === 'probe' ? `${by.why}; the lost request had not taken effect and the probe created it` : by.why;
      return `${succeeded}: ${why}`;
    }
    case 'unrecoverable':
      return `${lost}; ${settlement.why}`;
    case 'name-exists': {
      const { probe } = settlement;
      return `${lost}; ${settlement.why}; request ${probe.seq} (probe) answered ${probe.errorCode} "${probe.errorMessage}": ${settlement.exists}`;
    }
    case 'recovery-lost':
      return `${lost}; ${settlement.tries} ${settlement.purpose} requests lost their answers too: outcome still unknown (${settlement.why})`;
    case 'recovery-refused': {
      const refused =
        settlement.seq === undefined
          ? `the ${settlement.purpose}`
          : `request ${settlement.seq} (${settlement.purpose})`;
      return `${lost}; ${refused} was refused with ${settlement.code} (${settlement.message}), ${NOT_TELLING}`;
    }
  }
}

function lostAnswer(rows: readonly ManagementRequest[]): string {
  const lost = rows.filter((row) => row.status === 'ambiguous' || row.status === 'sent');
  const first = lost[0] ?? rows[0]!;
  const why = first.status === 'sent' ? 'the worker stopped before its answer was recorded' : (first.errorCode ?? '');
  return `request ${first.seq} (${first.endpoint}) lost its answer (${why === 'AMBIGUOUS_RESULT' ? 'connection lost after sending' : why})`;
}
