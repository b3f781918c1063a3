import type { FastifyReply, FastifyRequest } from 'fastify';

import { recordedShapeOf } from './answer-shapes.ts';
import { findKey, readAuthHeaders, verifyRequest } from './auth/authenticate.ts';
import { normalizeIp } from './auth/ip.ts';
import type { SimContext } from './context.ts';
import { ApiError, errorBody, errors, successBody } from './envelope.ts';
import { applyPageFault, CURSOR_PARAMS, omitRecordFields } from './page-faults.ts';
import { type Endpoint, RawBody, type RequestContext } from './routes/endpoint.ts';

interface Outcome {
  status: number;
  body: string | Buffer;
  code: string;
  release?: () => void;
}

/**
 * One API request, start to end: injected faults, the per-IP and
 * per-endpoint budgets, authentication and access rules, the handler, then
 * the answer (or a deliberately missing one). Counters and the request log
 * see every request.
 */
export async function runEndpoint(
  sim: SimContext,
  endpoint: Endpoint,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const wallNow = Date.now();
  const url = request.raw.url ?? '';
  const mark = url.indexOf('?');
  const path = mark < 0 ? url : url.slice(0, mark);
  const rawQuery = mark < 0 ? '' : url.slice(mark + 1);
  const keyHeader = request.headers['access-key'];
  // Read before any injected latency: once the caller has left, the socket no longer knows its peer,
  // and an empty address would be refused as 40018 "Invalid IP". The exchange, like this server,
  // goes on with a request that reached it (docs/exchange-api.md §3.4); only the answer is lost.
  const ip = normalizeIp(request.socket.remoteAddress ?? '');
  const log = (status: number, code: string | null) => {
    sim.counters.record(endpoint.path, status);
    sim.requestLog.add({
      method: endpoint.method,
      path: endpoint.path,
      query: rawQuery,
      status,
      code,
      time: wallNow,
      simTime: sim.clock.now(),
      key: typeof keyHeader === 'string' ? keyHeader : null,
    });
  };
  const fault = sim.faults.decide(endpoint.path);
  if (fault.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, fault.latencyMs));
  if (fault.reset) {
    hangUp(request, reply);
    log(0, null);
    return;
  }
  const query = new URLSearchParams(rawQuery);
  // The signature is checked over rawQuery, so a dropped cursor still verifies: the server just ignores it.
  if (
    sim.faults.dropsCursor(
      endpoint.path,
      CURSOR_PARAMS.some((name) => query.has(name)),
    )
  ) {
    for (const name of CURSOR_PARAMS) query.delete(name);
  }
  // Like a dropped cursor, a capped limit is the server's own doing: the signed query is unchanged.
  const capped = sim.faults.cappedLimit(endpoint.path, query.get('limit'));
  if (capped !== undefined) query.set('limit', capped);
  const ctx: RequestContext = {
    sim,
    method: endpoint.method,
    path,
    rawQuery,
    query,
    // A GET is signed with an empty body, whatever came with it.
    rawBody: endpoint.method === 'POST' && typeof request.body === 'string' ? request.body : '',
    ip,
    now: sim.clock.now(),
  };
  const cursor = CURSOR_PARAMS.map((name) => query.get(name)).find((value) => value !== null) ?? undefined;
  const outcome = withPageFault(
    sim,
    endpoint.path,
    cursor,
    withAnswerShapes(sim, endpoint.path, answer(sim, endpoint, ctx, request, wallNow, fault)),
  );
  if (sim.faults.takeApplyThenReset(endpoint.method, endpoint.path)) {
    outcome.release?.();
    hangUp(request, reply);
    log(0, null);
    return;
  }
  log(outcome.status, outcome.code);
  const body = fault.truncate ? truncated(outcome.body) : outcome.body;
  if (outcome.release) reply.raw.once('close', outcome.release);
  await reply.code(outcome.status).type('application/json').send(body);
}

function answer(
  sim: SimContext,
  endpoint: Endpoint,
  ctx: RequestContext,
  request: FastifyRequest,
  wallNow: number,
  fault: { burst429: boolean; http500: boolean },
): Outcome {
  const requestTime = ctx.now;
  try {
    if (fault.burst429) throw errors.rateLimited();
    if (fault.http500) throw errors.internal();
    const tick = performance.now();
    if (!sim.rateLimits.takeIp(ctx.ip, tick)) throw errors.rateLimited();
    let data: unknown;
    if (endpoint.auth === 'public') {
      if (!sim.rateLimits.takeEndpoint(endpoint.name, endpoint.perSecond, ctx.ip, tick)) throw errors.rateLimited();
      data = endpoint.handle(ctx);
    } else {
      const headers = readAuthHeaders(request.headers);
      const key = findKey(sim.accounts, headers);
      // The budget is the main account's: a sub-account key spends its parent's.
      if (!sim.rateLimits.takeEndpoint(endpoint.name, endpoint.perSecond, key.mainUid, tick)) {
        throw errors.rateLimited();
      }
      verifyRequest(key, headers, { ...ctx, wallNow, simNow: ctx.now });
      const main = sim.accounts.main(key.mainUid);
      if (!main) throw errors.unknownKey();
      const caller = { key, main, isMain: key.uid === key.mainUid };
      for (const rule of endpoint.access) rule(caller);
      data = endpoint.handle({ ...ctx, caller });
    }
    if (data instanceof RawBody) return { status: 200, body: data.bytes, code: '00000', release: data.release };
    return { status: 200, body: successBody(data, requestTime), code: '00000' };
  } catch (error) {
    const apiError = error instanceof ApiError ? error : errors.internal();
    return { status: apiError.status, body: errorBody(apiError, requestTime), code: apiError.code };
  }
}

/** A successful answer in the shapes the simulator is set to answer with (read at each request). */
function withAnswerShapes(sim: SimContext, path: string, outcome: Outcome): Outcome {
  if (sim.answerShapes === 'documented' || outcome.code !== '00000') return outcome;
  const body = recordedShapeOf(path, outcome.body);
  outcome.release?.();
  return { status: outcome.status, body, code: outcome.code };
}

/** A successful answer rewritten into the page fault configured for its path, if any. */
function withPageFault(sim: SimContext, path: string, cursor: string | undefined, outcome: Outcome): Outcome {
  const pageFault = sim.faults.pageFault(path);
  const omitted = sim.faults.omittedFields(path);
  if ((pageFault === undefined && omitted.length === 0) || outcome.code !== '00000') return outcome;
  let body =
    pageFault === undefined
      ? outcome.body
      : applyPageFault(pageFault, outcome.body, { path, cursor, memory: sim.faults.pageMemory });
  if (omitted.length > 0) body = omitRecordFields(omitted, body);
  if (body === outcome.body) return outcome;
  // The rewritten body is a copy: the original's buffer can go back to its pool now.
  outcome.release?.();
  return { status: outcome.status, body, code: outcome.code };
}

/** Leaves the request unanswered: the caller sees its connection reset. */
function hangUp(request: FastifyRequest, reply: FastifyReply): void {
  reply.hijack();
  request.raw.socket.destroy();
}

function truncated(body: string | Buffer): string | Buffer {
  const half = Math.floor(body.length / 2);
  return typeof body === 'string' ? body.slice(0, half) : body.subarray(0, half);
}
