import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';

import type { TransferRecord } from '../../src/simulator/index.ts';
import { DAY, get, NOW, outcome, PATHS, useSimulator } from './support/fixture.ts';

const ctx = useSimulator();
type Page = { list: TransferRecord[]; endId: string | null };

async function pageAll(params: Record<string, string | number>, limit: number): Promise<TransferRecord[]> {
  const seen: TransferRecord[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await get<Page>(ctx.sim, PATHS.transfers, { ...params, limit, cursor });
    expect(res.status).toBe(200);
    const { list, endId } = res.json.data;
    if (list.length === 0) return seen;
    expect(endId).toBe(list.at(-1)!.txId);
    seen.push(...list);
    cursor = endId!;
  }
}

describe('all-sub-deposit-withdrawal', () => {
  it('pages a 7-day window with cursor = data.endId, every record once, newest first by (ts, txId)', async () => {
    const [startTime, endTime] = [NOW - 7 * DAY, NOW];
    const seen = await pageAll({ startTime, endTime }, 4);
    const expected = ctx.sim.truth('transfers').filter((r) => Number(r.ts) >= startTime && Number(r.ts) <= endTime);
    expect(expected.length).toBeGreaterThan(4);
    expect(seen).toEqual(expected);
    expect(Object.keys(seen[0]!)).toEqual(['uid', 'txId', 'coin', 'type', 'subType', 'amount', 'status', 'ts']);
  });

  it('spreads the records over at least 20 broker sub-accounts, with every type, subType and status', () => {
    const all = ctx.sim.truth('transfers');
    expect(new Set(all.map((r) => r.uid)).size).toBeGreaterThanOrEqual(20);
    expect(new Set(all.map((r) => r.type))).toEqual(new Set(['deposit', 'withdrawal']));
    expect(new Set(all.map((r) => r.subType))).toEqual(new Set(['onchain', 'internal', 'fast']));
    expect(new Set(all.map((r) => r.status))).toEqual(new Set(['pending', 'success', 'fail']));
  });

  it('defaults to yesterday 00:00-23:59:59.999 UTC', async () => {
    const today = DateTime.fromMillis(NOW, { zone: 'utc' }).startOf('day').toMillis();
    const res = await get<Page>(ctx.sim, PATHS.transfers, {});
    const expected = ctx.sim.truth('transfers').filter((r) => Number(r.ts) >= today - DAY && Number(r.ts) < today);
    expect(res.json.data.list).toEqual(expected.slice(0, 100));
  });

  it('anchors a 7-day range at the one time given', async () => {
    const startTime = NOW - 30 * DAY;
    const res = await get<Page>(ctx.sim, PATHS.transfers, { startTime, limit: 100 });
    const expected = ctx.sim
      .truth('transfers')
      .filter((r) => Number(r.ts) >= startTime && Number(r.ts) <= startTime + 7 * DAY);
    expect(res.json.data.list).toEqual(expected.slice(0, 100));
  });

  it('filters by status', async () => {
    const res = await get<Page>(ctx.sim, PATHS.transfers, { startTime: NOW - DAY, endTime: NOW, status: 'pending' });
    expect(res.json.data.list.length).toBeGreaterThan(0);
    expect(res.json.data.list.every((r) => r.status === 'pending')).toBe(true);
  });

  it('settles pending records when the clock advances, moving their ts to the settle time', async () => {
    const pending = ctx.sim.truth('transfers').filter((r) => r.status === 'pending');
    expect(pending.length).toBeGreaterThan(0);
    ctx.sim.clock.advance(DAY);
    const later = new Map(ctx.sim.truth('transfers').map((r) => [r.txId, r]));
    ctx.sim.clock.set(NOW);
    for (const record of pending) {
      const settled = later.get(record.txId)!;
      expect(['success', 'fail']).toContain(settled.status);
      expect(Number(settled.ts)).toBeGreaterThan(Number(record.ts));
    }
    expect(ctx.sim.truth('transfers').filter((r) => r.status === 'pending')).toEqual(pending);
  });

  it.each([
    [
      { startTime: NOW - 8 * DAY, endTime: NOW },
      '00001',
      'startTime and endTime interval cannot be greater than 7 days',
    ],
    [{ startTime: NOW, endTime: NOW - DAY }, '40707', 'Start time is greater than end time'],
    [{ limit: 101 }, '40020', 'Parameter limit error'],
    [{ status: 'done' }, '40020', 'Parameter status error'],
    [{ cursor: 'x1' }, '40020', 'Parameter cursor error'],
  ])('rejects %j with %s', async (params, code, msg) => {
    const res = await get(ctx.sim, PATHS.transfers, params);
    expect(outcome(res)).toEqual({ status: 400, code, msg });
  });

  it('a broker parent key of a sub-account is not a broker parent (40029)', async () => {
    const sub = ctx.sim.state().subAccounts[0]!;
    const created = ctx.sim.context.accounts.addKey(
      sub.uid,
      ctx.sim.demo.uid,
      { permList: ['read'], ipList: [], label: 'x' },
      NOW,
    );
    const res = await get(ctx.sim, PATHS.transfers, {}, created);
    expect(res.json.code).toBe('40029');
  });
});
