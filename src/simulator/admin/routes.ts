import type { FastifyInstance, FastifyReply } from 'fastify';

import type { SimContext } from '../context.ts';
import type { FaultConfig } from '../faults.ts';
import type { TruthStream } from '../types.ts';
import { accountState, AdminInputError, createAccount, futuresBalances, placeOrders, truth } from './operations.ts';

/**
 * The /__sim admin API: clock, faults, counters, request log, ground truth,
 * accounts and orders. Plain JSON; bad input is a 400 with { error }.
 * Never rate-limited, faulted or counted.
 */
export function registerAdminRoutes(app: FastifyInstance, sim: SimContext): void {
  const guard = async (reply: FastifyReply, work: () => unknown) => {
    try {
      return await reply.code(200).send(work() ?? { ok: true });
    } catch (error) {
      if (error instanceof AdminInputError || error instanceof RangeError) {
        return reply.code(400).send({ error: error.message });
      }
      throw error;
    }
  };
  const json = (raw: unknown): unknown => {
    if (typeof raw !== 'string' || raw.trim() === '') return {};
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      throw new AdminInputError('body: must be JSON');
    }
  };

  app.get('/__sim/clock', (_req, reply) => guard(reply, () => ({ now: sim.clock.now(), frozen: sim.clock.frozen })));
  app.post('/__sim/clock', (req, reply) =>
    guard(reply, () => {
      const body = json(req.body) as { now?: unknown; advanceMs?: unknown; frozen?: unknown };
      if (body.now !== undefined) sim.clock.set(Number(body.now));
      if (body.advanceMs !== undefined) sim.clock.advance(Number(body.advanceMs));
      if (body.frozen === true) sim.clock.freeze();
      if (body.frozen === false) sim.clock.resume();
      return { now: sim.clock.now(), frozen: sim.clock.frozen };
    }),
  );

  app.get('/__sim/faults', (_req, reply) => guard(reply, () => sim.faults.config));
  app.post('/__sim/faults', (req, reply) =>
    guard(reply, () => {
      sim.faults.set(json(req.body) as FaultConfig);
      return sim.faults.config;
    }),
  );
  app.delete('/__sim/faults', (_req, reply) => guard(reply, () => sim.faults.clear()));

  app.get('/__sim/counters', (_req, reply) => guard(reply, () => sim.counters.snapshot()));
  app.post('/__sim/counters/reset', (_req, reply) => guard(reply, () => sim.counters.reset()));

  app.get('/__sim/requests', (req, reply) =>
    guard(reply, () => {
      const limit = (req.query as { limit?: string }).limit;
      return sim.requestLog.list(limit === undefined ? undefined : Number(limit));
    }),
  );
  app.delete('/__sim/requests', (_req, reply) => guard(reply, () => sim.requestLog.clear()));

  app.get('/__sim/truth/:stream', (req, reply) =>
    guard(reply, () => {
      const { stream } = req.params as { stream: string };
      const { uid } = req.query as { uid?: string };
      return truth(sim, stream as TruthStream, uid);
    }),
  );

  app.get('/__sim/futures-balances', (req, reply) =>
    guard(reply, () => futuresBalances(sim, (req.query as { uid?: string }).uid)),
  );

  app.post('/__sim/accounts', (req, reply) => guard(reply, () => createAccount(sim, json(req.body))));
  app.get('/__sim/state', (req, reply) => guard(reply, () => accountState(sim, (req.query as { uid?: string }).uid)));
  app.post('/__sim/orders', (req, reply) => guard(reply, () => placeOrders(sim, json(req.body))));
}
