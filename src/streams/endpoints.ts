import { coreEndpoint, ENDPOINT_NAMES, type NamedEndpoint } from '../exchange/index.ts';
import { STREAM_DEFINITIONS, STREAMS } from './registry.ts';

/**
 * Every endpoint ledgerline calls: the exchange layer's own (sub-accounts,
 * trading, market data) and the one each registered history stream declares
 * in its folder. The rate budgets, the endpoint table of docs/exchange-api.md
 * §4.1 and the tests read this list; a new stream joins it through its line in
 * `registry.ts`.
 */
export const ALL_ENDPOINTS: readonly NamedEndpoint[] = [
  ...ENDPOINT_NAMES.map(coreEndpoint),
  ...STREAMS.map((stream) => STREAM_DEFINITIONS[stream].endpoint),
];

export const ALL_ENDPOINT_NAMES: readonly string[] = ALL_ENDPOINTS.map((endpoint) => endpoint.name);

/** The endpoint of that name; an unknown name is a programming error. */
export function endpointNamed(name: string): NamedEndpoint {
  const found = ALL_ENDPOINTS.find((endpoint) => endpoint.name === name);
  if (!found) throw new Error(`no endpoint named ${JSON.stringify(name)}`);
  return found;
}

/** Every endpoint's per-second budget times `factor` (a simulator sped up or slowed down). */
export function scaledRates(
  factor: number,
  round: (value: number) => number = (value) => value,
): Record<string, number> {
  return Object.fromEntries(ALL_ENDPOINTS.map((endpoint) => [endpoint.name, round(endpoint.perSecond * factor)]));
}
