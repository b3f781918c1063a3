import { describe, expect, it } from 'vitest';

import { SIM_LEDGERS } from '../../src/simulator/ledgers/index.ts';
import { ENDPOINTS } from '../../src/simulator/routes/index.ts';
import { createContext } from '../../src/simulator/start.ts';
import { STREAM_DEFINITIONS, STREAMS, WALLET_LEDGERS } from '../../src/streams/registry.ts';

/*
 * The simulator lists its wallet ledgers once (src/simulator/ledgers/index.ts) and everything else
 * reads that list; these hold the list to ledgerline's registry, so a history added on one side
 * only fails here rather than in a year's backfill.
 */
describe('simulator wallet ledgers', () => {
  it('serves every stream of the registry at its path, method and budget', () => {
    for (const stream of STREAMS) {
      const { endpoint } = STREAM_DEFINITIONS[stream];
      const served = ENDPOINTS.find((e) => e.path === endpoint.path);
      expect(served, `${stream}: ${endpoint.path} has no simulator route`).toBeDefined();
      expect([served!.method, served!.perSecond], stream).toEqual([endpoint.method, endpoint.perSecond]);
    }
  });

  it('has one ledger per wallet ledger of the registry, accepting the span ledgerline asks for', () => {
    expect(SIM_LEDGERS.map((ledger) => ledger.stream)).toEqual([...WALLET_LEDGERS]);
    for (const ledger of SIM_LEDGERS) {
      const { endpoint } = STREAM_DEFINITIONS[ledger.stream];
      expect(ledger.route.path, ledger.stream).toBe(endpoint.path);
      expect(ledger.route.maxDays, ledger.stream).toBeGreaterThanOrEqual(endpoint.maxSpanDays);
    }
  });

  it('gives each account a store per ledger, its records ascending by id, and no spot-transfer slot twice', () => {
    const sim = createContext({ seed: 42, scale: 'tiny', now: Date.UTC(2026, 10, 1) });
    const data = sim.dataOf(sim.demo.account.uid);
    for (const ledger of SIM_LEDGERS) {
      const rows = data[ledger.key].visible(Date.UTC(2027, 0, 1));
      expect(rows.length, ledger.stream).toBeGreaterThan(0);
      expect(rows.every((row, i) => i === 0 || row.id < rows[i - 1]!.id)).toBe(true);
    }
    const slots = SIM_LEDGERS.flatMap((ledger) => Object.keys(ledger.transferSlots));
    expect(new Set(slots).size).toBe(slots.length);
  });
});
