import type { ManagementRequest } from '../generated/prisma/client.ts';
import type { PlannedRequest } from './action-plan.ts';
import type { RequestRecorder, Tx } from './request-recorder.ts';
import { describeSettlement, type Settlement } from './step-settlement.ts';

/** Requests sent to settle one lost answer, at most. */
export const MAX_RECOVERY_REQUESTS = 3;

/** The exchange's answer to a create whose unique name exists already. */
export const NAME_EXISTS_CODE = '40060';

export type StepResult =
  | { state: 'done'; resolution?: string }
  | { state: 'failed'; error: string }
  | { state: 'ambiguous'; resolution: string };

/** How a step is settled when a request's answer was lost (or a worker died while it was out). */
export type Recovery =
  /** No safe way to learn the outcome: nothing is repeated, a person decides. */
  | { kind: 'none'; why: string }
  /** The request is idempotent (modify, cancel): sending it again cannot do anything twice. */
  | { kind: 'repeat'; why: string }
  /**
   * A create of a unique name: sending it again creates it if the lost one
   * had not landed. A 40060 refusal only says the name exists now: the lost
   * request may have created it, or it was taken before (the lost answer may
   * have been that same refusal), so it ends ambiguous, with `exists` saying why.
   */
  | { kind: 'probe'; why: string; exists: string };

export interface StepSpec<T> {
  request: PlannedRequest;
  call: () => Promise<T>;
  /** Local effects of a successful answer; `recovering` is true for a repeat or probe. */
  onSuccess: (tx: Tx, data: T, seq: number, recovering: boolean) => Promise<void>;
  recovery: Recovery;
}

/** A step's end as decided, before it is worded for the operator (see step-settlement.ts). */
type StepDecision =
  | { state: 'done'; settlement?: Settlement }
  | { state: 'failed'; error: string }
  | { state: 'ambiguous'; settlement: Settlement };

/**
 * Carries out one step of an action, resuming from its recorded requests:
 * a step already answered is not sent again, a step with a request still
 * out (lost answer, or a crash) is settled by its recovery rule, never by a
 * blind repeat.
 */
export async function runStep<T>(recorder: RequestRecorder, spec: StepSpec<T>): Promise<StepResult> {
  return toStepResult(await decideStep(recorder, spec));
}

async function decideStep<T>(recorder: RequestRecorder, spec: StepSpec<T>): Promise<StepDecision> {
  const before = recorder.of(spec.request.step);
  const last = before.at(-1);
  if (last) {
    const settled = settledBefore(spec, before, last);
    if (settled) return settled;
  } else {
    const first = await recorder.send(spec.request, 'send', spec.call, (tx, data, seq) =>
      spec.onSuccess(tx, data, seq, false),
    );
    if (first.ok) return { state: 'done' };
    if (!first.ambiguous) return { state: 'failed', error: first.error.message };
  }
  return recover(recorder, spec);
}

/** What the recorded requests of a step already settle; undefined when a request's outcome is open. */
function settledBefore<T>(
  spec: StepSpec<T>,
  rows: ManagementRequest[],
  last: ManagementRequest,
): StepDecision | undefined {
  if (last.status === 'succeeded') {
    return rows.length > 1 ? { state: 'done', settlement: { kind: 'recovered', rows } } : { state: 'done' };
  }
  if (last.status !== 'failed') return undefined;
  if (last.purpose === 'send') return { state: 'failed', error: `${last.errorCode}: ${last.errorMessage}` };
  // A probe's or repeat's refusal was recorded before the worker stopped: decided by it as then.
  if (spec.recovery.kind === 'probe' && last.errorCode === NAME_EXISTS_CODE) return undefined;
  return {
    state: 'ambiguous',
    settlement: {
      kind: 'recovery-refused',
      rows,
      purpose: last.purpose,
      code: last.errorCode,
      message: last.errorMessage,
      seq: last.seq,
    },
  };
}

async function recover<T>(recorder: RequestRecorder, spec: StepSpec<T>): Promise<StepDecision> {
  const recovery = spec.recovery;
  if (recovery.kind === 'none') {
    return {
      state: 'ambiguous',
      settlement: { kind: 'unrecoverable', rows: recorder.of(spec.request.step), why: recovery.why },
    };
  }
  const purpose = recovery.kind === 'probe' ? 'probe' : 'repeat';
  for (;;) {
    const rows = recorder.of(spec.request.step);
    const last = rows.at(-1)!;
    if (recovery.kind === 'probe' && last.status === 'failed' && last.errorCode === NAME_EXISTS_CODE) {
      return {
        state: 'ambiguous',
        settlement: { kind: 'name-exists', rows, why: recovery.why, exists: recovery.exists, probe: last },
      };
    }
    const tries = rows.filter((row) => row.purpose !== 'send').length;
    if (tries >= MAX_RECOVERY_REQUESTS) {
      return {
        state: 'ambiguous',
        settlement: { kind: 'recovery-lost', rows, purpose, tries, why: recovery.why },
      };
    }
    const again = await recorder.send(spec.request, purpose, spec.call, (tx, data, seq) =>
      spec.onSuccess(tx, data, seq, true),
    );
    if (again.ok) {
      return {
        state: 'done',
        settlement: { kind: 'recovered', rows: recorder.of(spec.request.step), by: { purpose, why: recovery.why } },
      };
    }
    if (again.ambiguous) continue;
    if (recovery.kind === 'probe' && again.error.code === NAME_EXISTS_CODE) continue;
    // A refused repeat or probe says nothing about the lost request (a 429 after every retry, say).
    return {
      state: 'ambiguous',
      settlement: {
        kind: 'recovery-refused',
        rows: recorder.of(spec.request.step),
        purpose,
        code: again.error.code,
        message: again.error.message,
      },
    };
  }
}

/** The decision as the action records it: settlements worded for the operator. */
function toStepResult(decision: StepDecision): StepResult {
  switch (decision.state) {
    case 'done':
      return decision.settlement
        ? { state: 'done', resolution: describeSettlement(decision.settlement) }
        : { state: 'done' };
    case 'failed':
      return decision;
    case 'ambiguous':
      return { state: 'ambiguous', resolution: describeSettlement(decision.settlement) };
  }
}
