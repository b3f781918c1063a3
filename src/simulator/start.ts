import { accountState, createAccount, futuresBalances, placeOrders, truth } from './admin/operations.ts';
import { ANSWER_SHAPES } from './answer-shapes.ts';
import { SimClock } from './clock.ts';
import { SimContext } from './context.ts';
import { resolveScale } from './data/scale.ts';
import { buildServer } from './server.ts';
import type { RunningSimulator, SimulatorOptions, TruthRecord, TruthStream } from './types.ts';

/** Builds the simulated exchange (data generated from the seed) and starts serving it. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const sim = createContext(options);
  const app = buildServer(sim, { admin: options.admin ?? true });
  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const demo = sim.demo;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    demo: {
      uid: demo.account.uid,
      apiKey: demo.key.apiKey,
      secretKey: demo.key.secretKey,
      passphrase: demo.key.passphrase,
    },
    close: () => app.close(),
    clock: sim.clock,
    truth: <S extends TruthStream>(stream: S, uid?: string) => truth(sim, stream, uid) as TruthRecord<S>[],
    futuresBalances: (uid) => futuresBalances(sim, uid),
    faults: { set: (config) => sim.faults.set(config), clear: () => sim.faults.clear(), get: () => sim.faults.config },
    counters: { get: () => sim.counters.snapshot(), reset: () => sim.counters.reset() },
    requestLog: { list: (limit) => sim.requestLog.list(limit), clear: () => sim.requestLog.clear() },
    rateLimits: { configure: (limits) => sim.rateLimits.configure(limits), reset: () => sim.rateLimits.reset() },
    createAccount: (spec) => createAccount(sim, spec ?? {}),
    state: (uid) => accountState(sim, uid),
    placeOrders: (orders) => placeOrders(sim, orders),
    setTimestampSpelling: (spelling) => {
      sim.timestampSpelling = spelling;
    },
    setAnswerShapes: (shapes) => {
      if (!ANSWER_SHAPES.includes(shapes)) throw new RangeError('answerShapes: must be documented or recorded');
      sim.answerShapes = shapes;
    },
    context: sim,
  };
}

export function createContext(options: SimulatorOptions = {}): SimContext {
  const seed = options.seed ?? 42;
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed: must be an integer (got ${String(seed)})`);
  const spelling = options.timestampSpelling ?? 'lower';
  if (spelling !== 'lower' && spelling !== 'camel') throw new RangeError('timestampSpelling: must be lower or camel');
  const shapes = options.answerShapes ?? 'documented';
  if (!ANSWER_SHAPES.includes(shapes)) throw new RangeError('answerShapes: must be documented or recorded');
  const clock = new SimClock(options.now);
  return new SimContext({
    seed,
    scale: resolveScale(options.scale),
    anchor: options.anchor ?? clock.now(),
    demoIps: options.demoIps ?? [],
    clock,
    rateLimits: options.rateLimits ?? { enabled: true },
    timestampSpelling: spelling,
    answerShapes: shapes,
    ...(options.requestLogSize === undefined ? {} : { requestLogSize: options.requestLogSize }),
  });
}
