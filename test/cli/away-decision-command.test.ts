import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';

import { beforeAll, describe, expect, it } from 'vitest';

import { importAwayDecisions } from '../../src/accounting/cost-basis/away-decision-import.ts';
import { coinsAway } from '../../src/accounting/gains/coins-away.ts';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { parseExportRequest, reportParams } from '../../src/export/export-request.ts';
import { reportFor } from '../../src/export/reports/index.ts';
import { streamReport } from '../../src/export/stream-report.ts';
import { insertAccount, insertSpot, parseCsv, withClient } from '../export/seed.ts';
import { runCliLive } from '../helpers/cli.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

/**
 * Issue 42 item 4, coins that never come back (docs/reports.md, "Coins away"; docs/cli.md): moves
 * to a strategy, Earn or a lock not back after COINS_AWAY_DAYS are listed (the accountants' page
 * calls coinsAway) and counted in the summaries' review; the accountant's decision is a supplied,
 * logged figure (who, from what file, when; withdrawn, never deleted) and the walks use it: `lost`
 * is a disposal for nothing at its date (TCGA92 s24(1)).
 */
const db = useTestDatabase('awaydecision');
const dir = mkdtempSync(path.join(tmpdir(), 'ledgerline-away-'));
const env = () => ({ DATABASE_URL: db.url });
let accountId: string;

function file(name: string, text: string): string {
  const target = path.join(dir, name);
  writeFileSync(target, text);
  return target;
}

const HEADER = 'record_id,coin,quantity,decision,decided_at,source,note';

beforeAll(async () => {
  accountId = await insertAccount(db.url, 'alice');
  await insertSpot(db.url, accountId, [
    // 1000 USDT bought with 0.02 BTC... kept simple: a deposit of USDT, then two moves to a strategy.
    { recordId: 'd1', coin: 'USDT', spotTaxType: 'Deposit', amount: '1000', ts: '2026-01-02T10:00:00Z' },
    {
      recordId: 'm1',
      coin: 'USDT',
      spotTaxType: 'Withdraw to strategy account',
      amount: '-300',
      ts: '2026-01-10T10:00:00Z',
    },
    {
      recordId: 'm2',
      coin: 'USDT',
      spotTaxType: 'Withdraw to strategy account',
      amount: '-200',
      ts: '2026-02-10T10:00:00Z',
    },
    // 100 come back: they end the oldest move's coins first (m1: 200 of its 300 stay away).
    {
      recordId: 'b1',
      coin: 'USDT',
      spotTaxType: 'Deposit from strategy account',
      amount: '100',
      ts: '2026-03-01T10:00:00Z',
    },
    // A lock that came back whole: never flagged.
    { recordId: 'l1', coin: 'USDT', spotTaxType: 'User lock-up', amount: '-50', ts: '2026-01-05T10:00:00Z' },
    { recordId: 'l2', coin: 'USDT', spotTaxType: 'Unlock locked order', amount: '50', ts: '2026-01-20T10:00:00Z' },
  ]);
  // A EUR price for USDT every day of the year, so the decided loss has a cost in euros to lose.
  await withClient(db.url, async (c) => {
    await c.query(
      `INSERT INTO price (time, base, quote, price, source, account_id)
       SELECT d, 'USDT', 'EUR', 0.9, 'test', NULL FROM generate_series('2026-01-01'::timestamptz, '2026-12-31', '1 day') d`,
    );
  });
});

async function summary() {
  const request = parseExportRequest({
    report: 'realized-gains-summary',
    accountId,
    from: '2026-01-01',
    to: '2026-12-31',
    tz: 'Europe/Berlin',
    method: 'de',
  });
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (chunk: Buffer) => chunks.push(chunk));
  const result = await streamReport({
    databaseUrl: db.url,
    report: reportFor('realized-gains-summary', 'de'),
    params: reportParams(request, 'alice', { currency: 'EUR', priceToleranceMs: 36 * 3_600_000, coinsAwayDays: 90 }),
    sink,
  });
  const [header, ...rows] = parseCsv(Buffer.concat(chunks).toString('utf8'));
  return { header: header!, rows, result };
}

describe('coins away', () => {
  it('lists the moves not back after the stated days, the oldest move ended first by a return', async () => {
    const moves = await withClient(db.url, (c) =>
      coinsAway(c, accountId, new Date('2026-06-01T00:00:00Z'), { days: 90 }),
    );
    expect(moves.map((m) => [m.recordId, m.coin, m.quantity, m.movedAt, m.daysAway, m.decision])).toEqual([
      ['m1', 'USDT', '200', '2026-01-10T10:00:00.000Z', 141, null],
      ['m2', 'USDT', '200', '2026-02-10T10:00:00.000Z', 110, null],
    ]);
    // Fewer days away than the bound: not flagged yet.
    const early = await withClient(db.url, (c) =>
      coinsAway(c, accountId, new Date('2026-05-01T00:00:00Z'), { days: 90 }),
    );
    expect(early.map((m) => m.recordId)).toEqual(['m1']);
    const listed = await runCliLive(['away-decision', 'list', '--account', 'alice', '--json', '--days', '30'], env());
    expect(listed.stderr).toBe('');
    expect((JSON.parse(listed.stdout) as { moves: { recordId: string }[] }).moves.map((m) => m.recordId)).toEqual([
      'm1',
      'm2',
    ]);
  }, 120_000);

  it('counts the undecided moves in the summary’s review (one row each, level coins-away); the figures hold them', async () => {
    const { header, rows, result } = await summary();
    const away = rows.filter((r) => r[header.indexOf('level')] === 'coins-away');
    expect(away.map((r) => r[header.indexOf('coin')])).toEqual(['USDT', 'USDT']);
    expect(away[0]![header.indexOf('note')]).toMatch(
      /200 USDT moved away \(Withdraw to strategy account, spot record m1/,
    );
    expect(result.review.values['coins-away']).toBe(2);
  });

  it('refuses a bad decisions file naming the line and the field, nothing written', async () => {
    const cases: [string, RegExp][] = [
      [`${HEADER}\nm1,USDT,200,gone,2026-06-30,acct,`, /line 2 decision: must be one of held, lost/],
      [`${HEADER}\nm1,USDT,301,lost,2026-06-30,acct,`, /line 2 quantity: must be at most the 300 USDT moved/],
      [`${HEADER}\nd1,USDT,1,lost,2026-06-30,acct,`, /line 2 record_id: must name a spot move away/],
      [`${HEADER}\nm1,USDT,1,lost,2026-01-01,acct,`, /line 2 decided_at: must not be before the move/],
      [`${HEADER}\nm1,BTC,1,lost,2026-06-30,acct,`, /line 2 coin: must be the move's coin USDT/],
    ];
    for (const [text, message] of cases) {
      await expect(
        withClient(db.url, (c) => importAwayDecisions(c, accountId, file('bad.csv', text), 'cli:test')),
        text,
      ).rejects.toThrow(message);
    }
    // The command says so on one line and exits 2 (bad input).
    const refused = await runCliLive(['away-decision', 'import', '--file', file('bad.csv', cases[0]![0])], env());
    expect(refused.status).toBe(EXIT.badInput);
    expect(refused.stderr).toMatch(cases[0]![1]);
    const stored = await withClient(db.url, (c) => c.query('SELECT count(*)::int AS n FROM away_decision_import'));
    expect(stored.rows[0].n).toBe(0);
  }, 120_000);

  it('records a decision with who supplied it; the walk disposes of lost coins for nothing; withdrawal is logged and undoes it', async () => {
    const changesBefore = await withClient(db.url, (c) => c.query('SELECT count(*)::int AS n FROM gains_input_change'));
    const decisions = file(
      'decisions.csv',
      `${HEADER}\nm1,USDT,200,lost,2026-06-30,accountant-letter,platform closed\nm2,USDT,200,held,2026-06-30,accountant-letter,strategy still running\n`,
    );
    const imported = await runCliLive(['away-decision', 'import', '--file', decisions, '--json'], env());
    expect(imported.stderr).toBe('');
    const result = JSON.parse(imported.stdout) as {
      importId: string;
      inserted: number;
      imports: { suppliedBy: string }[];
    };
    expect(result.inserted).toBe(2);
    expect(result.imports[0]!.suppliedBy).toMatch(/^cli:\S+$/);
    const again = await runCliLive(['away-decision', 'import', '--file', decisions, '--json'], env());
    expect(JSON.parse(again.stdout)).toMatchObject({ alreadyImported: true, inserted: 0 });
    const conflicting = file('other.csv', `${HEADER}\nm1,USDT,200,held,2026-06-30,accountant-letter,`);
    const refused = await runCliLive(['away-decision', 'import', '--file', conflicting], env());
    expect(refused.status).toBe(EXIT.badInput);
    expect(refused.stderr).toMatch(/line 2 decision: differs from the decision of import \d+ \(lost 200/);

    const changesAfter = await withClient(db.url, (c) => c.query('SELECT count(*)::int AS n FROM gains_input_change'));
    expect(changesAfter.rows[0].n).toBeGreaterThan(changesBefore.rows[0].n);

    // Decided: no review rows; the lost 200 USDT are a disposal for nothing on 30 June, at their cost.
    const decided = await summary();
    expect(decided.rows.filter((r) => r[decided.header.indexOf('level')] === 'coins-away')).toEqual([]);
    expect(decided.result.review.values['coins-away']).toBeUndefined();
    const usdt = decided.rows.find((r) => r[0] === 'coin' && r[decided.header.indexOf('coin')] === 'USDT');
    // Deposited USDT is of unknown cost (nothing supplied): the loss is counted as unknown cost, proceeds 0.
    expect(usdt?.[decided.header.indexOf('unknown_cost_quantity')]).toBe('200');
    expect(usdt?.[decided.header.indexOf('unknown_cost_proceeds')]).toBe('0');

    const withdrawn = await runCliLive(
      ['away-decision', 'withdraw', '--import', result.importId, '--reason', 'the platform paid out after all'],
      env(),
    );
    expect(withdrawn.stderr).toBe('');
    const imports = await runCliLive(['away-decision', 'imports', '--json'], env());
    const listed = (
      JSON.parse(imports.stdout) as { imports: { withdrawnReason: string | null; withdrawnBy: string }[] }
    ).imports[0]!;
    expect(listed.withdrawnReason).toBe('the platform paid out after all');
    expect(listed.withdrawnBy).toMatch(/^cli:/);
    const changesWithdrawn = await withClient(db.url, (c) =>
      c.query('SELECT count(*)::int AS n FROM gains_input_change'),
    );
    expect(changesWithdrawn.rows[0].n).toBeGreaterThan(changesAfter.rows[0].n);
    const undone = await summary();
    expect(undone.result.review.values['coins-away']).toBe(2);
    expect(undone.rows.find((r) => r[0] === 'coin' && r[undone.header.indexOf('coin')] === 'USDT')).toBeUndefined();
  }, 240_000);
});
