import type { PrismaClient } from '../db/prisma.ts';
import { AmbiguousResultError, ExchangeError, RequestValidationError } from '../exchange/index.ts';
import type { ManagementRequest, ManagementRequestPurpose, Prisma } from '../generated/prisma/client.ts';
import type { Logger } from '../logging/logger.ts';
import { type PlannedRequest, redactBody } from './action-plan.ts';

export type Tx = Prisma.TransactionClient;

export type CallOutcome<T> =
  | { ok: true; data: T; seq: number }
  | { ok: false; ambiguous: true; error: ExchangeError; seq: number }
  | { ok: false; ambiguous: false; error: ExchangeError | RequestValidationError; seq: number };

/**
 * Sends one request of an action with its audit trail: the request row is
 * written (body redacted) BEFORE sending, and the answer is recorded in the
 * same transaction as whatever the answer changes locally (the mirror, the
 * per-order outcomes, a sealed secret). A row still `sent` after a crash is
 * a request whose outcome is unknown.
 */
export class RequestRecorder {
  #rows: ManagementRequest[];

  constructor(
    private readonly prisma: PrismaClient,
    private readonly actionId: string,
    rows: ManagementRequest[],
    private readonly log: Logger,
  ) {
    this.#rows = [...rows].sort((a, b) => a.seq - b.seq);
  }

  static async load(prisma: PrismaClient, actionId: string, log: Logger): Promise<RequestRecorder> {
    const rows = await prisma.managementRequest.findMany({ where: { actionId }, orderBy: { seq: 'asc' } });
    return new RequestRecorder(prisma, actionId, rows, log);
  }

  /** The requests of one step so far, oldest first (a step is resumed from them after a crash). */
  of(step: string): ManagementRequest[] {
    return this.#rows.filter((row) => row.step === step);
  }

  get count(): number {
    return this.#rows.length;
  }

  async send<T>(
    request: PlannedRequest,
    purpose: ManagementRequestPurpose,
    call: () => Promise<T>,
    onSuccess: (tx: Tx, data: T, seq: number) => Promise<void> = async () => undefined,
  ): Promise<CallOutcome<T>> {
    const seq = (this.#rows.at(-1)?.seq ?? 0) + 1;
    const row = await this.prisma.managementRequest.create({
      data: {
        actionId: this.actionId,
        seq,
        step: request.step,
        purpose,
        endpoint: request.endpoint,
        method: request.method,
        path: request.path,
        body: redactBody(request.body) as Prisma.InputJsonValue,
      },
    });
    this.#rows.push(row);
    const entity = { seq, step: request.step, endpoint: request.endpoint, purpose };
    let data: T;
    try {
      data = await call();
    } catch (error) {
      if (!(error instanceof ExchangeError) && !(error instanceof RequestValidationError)) throw error;
      const ambiguous = error instanceof AmbiguousResultError;
      await this.#settle(seq, {
        status: ambiguous ? 'ambiguous' : 'failed',
        errorCode: error.code,
        errorMessage: error.message,
        answeredAt: ambiguous ? null : new Date(),
      });
      this.log.warn({ ...entity, code: error.code, ambiguous }, 'management request failed');
      return ambiguous
        ? { ok: false, ambiguous, error: error as ExchangeError, seq }
        : { ok: false, ambiguous, error, seq };
    }
    await this.prisma.$transaction(async (tx) => {
      await tx.managementRequest.update({
        where: { actionId_seq: { actionId: this.actionId, seq } },
        data: { status: 'succeeded', response: redactBody(data) as Prisma.InputJsonValue, answeredAt: new Date() },
      });
      await onSuccess(tx, data, seq);
    });
    this.#replace(seq, { status: 'succeeded' });
    this.log.info(entity, 'management request succeeded');
    return { ok: true, data, seq };
  }

  /** Local effects that belong with the recorded answers (the mirror after a probe). */
  async transaction(work: (tx: Tx) => Promise<void>): Promise<void> {
    await this.prisma.$transaction(work);
  }

  async #settle(
    seq: number,
    data: Pick<ManagementRequest, 'status' | 'errorCode' | 'errorMessage' | 'answeredAt'>,
  ): Promise<void> {
    await this.prisma.managementRequest.update({ where: { actionId_seq: { actionId: this.actionId, seq } }, data });
    this.#replace(seq, data);
  }

  #replace(seq: number, changes: Partial<ManagementRequest>): void {
    this.#rows = this.#rows.map((row) => (row.seq === seq ? { ...row, ...changes } : row));
  }
}
