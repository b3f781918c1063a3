import { describe, expect, it } from 'vitest';

import { SecretBox } from '../../src/crypto/secret-box.ts';
import {
  AmbiguousResultError,
  ExchangeNetworkError,
  ExchangeRateLimitError,
} from '../../src/exchange/errors/exchange-error.ts';
import type { ExchangeClient } from '../../src/exchange/index.ts';
import { createRootLogger } from '../../src/logging/logger.ts';
import { type ActionInput, redactInput, splitSecrets } from '../../src/management/action-input.ts';
import { recordAction } from '../../src/management/action-store.ts';
import { runAction } from '../../src/management/run-action.ts';
import { usePipeline } from '../helpers/pipeline.ts';

const file = usePipeline('mgmtrefused', { workers: false });
const { db } = file;

describe('a lost answer whose idempotent repeat is refused', () => {
  it('ends ambiguous with every order unknown, never "failed": the lost request may have cancelled them', async () => {
    const placed = file.pipeline.sim.placeOrders(
      Array.from({ length: 3 }, (_, k) => ({
        category: 'SPOT' as const,
        symbol: 'BTCUSDT',
        orderId: `rr-o${k}`,
        clientOid: `rr-c${k}`,
      })),
    );
    const input: ActionInput = {
      command: 'orders_batch_cancel',
      params: { orders: placed.map((o) => ({ symbol: o.symbol, orderId: o.orderId })) },
    };
    const box = new SecretBox(file.pipeline.runtime.config.masterKey);
    const { action } = await recordAction(
      db.prisma,
      box,
      file.pipeline.accountId,
      splitSecrets(input),
      'caller:refused-1',
      redactInput(input),
    );
    const real = await file.pipeline.runtime.clients.forAccount(file.pipeline.accountId);
    let calls = 0;
    // The first request cancels the orders but its answer is lost; the repeat meets 429s until the client gives up.
    const client = {
      batchCancelOrder: async (params: Parameters<ExchangeClient['batchCancelOrder']>[0]) => {
        calls += 1;
        if (calls === 1) {
          await real.batchCancelOrder(params);
          const reset = new ExchangeNetworkError({
            endpoint: 'batchCancelOrder',
            code: 'NETWORK',
            msg: 'connection reset after sending',
            requestMayHaveBeenSent: true,
          });
          throw new AmbiguousResultError('batchCancelOrder', reset);
        }
        throw new ExchangeRateLimitError({
          endpoint: 'batchCancelOrder',
          code: '429',
          msg: 'Too Many Requests',
          httpStatus: 429,
        });
      },
    } as unknown as ExchangeClient;
    const log = createRootLogger({ level: 'silent' });
    const finished = await runAction(
      { prisma: db.prisma, pool: file.pipeline.runtime.pool, box, log, clients: { forAccount: async () => client } },
      action.id,
    );

    const open = new Set(file.pipeline.sim.state().openOrders.map((o) => o.orderId));
    expect(placed.filter((o) => open.has(o.orderId))).toEqual([]);
    expect(finished.status).toBe('ambiguous');
    expect(finished.resolution).toMatch(
      /the repeat was refused with 429 .* does not tell whether the lost request took effect/,
    );
    const outcomes = await db.prisma.orderCancelOutcome.findMany({ where: { actionId: action.id } });
    expect(outcomes.map((o) => o.result)).toEqual(['unknown', 'unknown', 'unknown']);
  });
});
