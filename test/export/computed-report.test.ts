import { Writable } from 'node:stream';

import { describe, expect, it } from 'vitest';

import { ValidationError } from '../../src/errors/index.ts';
import { parseExportRequest, reportParams } from '../../src/export/export-request.ts';
import { type ComputedReportDefinition, decimal, REVIEW_PREFIX, text } from '../../src/export/report-definition.ts';
import { streamReport } from '../../src/export/stream-report.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { insertAccount } from './seed.ts';

const db = useTestDatabase('exportcomputed');

function collector(): { sink: Writable; text: () => string } {
  let out = '';
  return {
    sink: new Writable({
      write(chunk: Buffer, _encoding, callback) {
        out += chunk.toString('utf8');
        callback();
      },
    }),
    text: () => out,
  };
}

// A computed report reads through the export's own connection, in the period's time zone.
const zoneReport: ComputedReportDefinition = {
  kind: 'computed',
  name: 'zone-probe',
  title: 'Zone probe',
  description: 'test only',
  columns: [text('zone'), decimal('amount')],
  streams: [],
  accepts: { coin: false, includePending: false },
  async *rows(_params, client) {
    const { rows } = await client.query<{ zone: string }>(`SELECT current_setting('TimeZone') AS zone`);
    yield { cells: [rows[0]!.zone, '-1.50'] };
    yield { cells: ['=cmd', null], flag: `${REVIEW_PREFIX}Check me` };
  },
};

describe('computed reports', () => {
  it('stream their rows through the same encoder, neutralization, hashing and flag counting', async () => {
    const accountId = await insertAccount(db.url, 'computed');
    const request = parseExportRequest({
      report: 'spot-ledger',
      accountId,
      from: '2026-05-01',
      to: '2026-05-31',
      tz: 'Europe/Berlin',
    });
    const out = collector();
    const result = await streamReport({
      databaseUrl: db.url,
      report: zoneReport,
      params: reportParams(request),
      sink: out.sink,
    });
    expect(out.text()).toBe("zone,amount\nEurope/Berlin,-1.50\n'=cmd,\n");
    expect(result.rowCount).toBe(2);
    expect(result.review).toEqual({ rows: 1, values: { 'Check me': 1 } });
    expect(result.bytes).toBe(Buffer.byteLength(out.text()));
  });

  it('fail the export with the error their rows throw', async () => {
    const accountId = await insertAccount(db.url, 'failing');
    const request = parseExportRequest({ report: 'spot-ledger', accountId, from: '2026-05-01', to: '2026-05-31' });
    const failing: ComputedReportDefinition = {
      ...zoneReport,
      // eslint-disable-next-line require-yield
      async *rows() {
        throw new ValidationError('coin', 'closing balance must equal the exchange balance', 'BTC');
      },
    };
    await expect(
      streamReport({ databaseUrl: db.url, report: failing, params: reportParams(request), sink: collector().sink }),
    ).rejects.toBeInstanceOf(ValidationError);
  });
});
