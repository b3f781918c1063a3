import { beforeAll, describe, expect, it } from 'vitest';

import { exportCsvPath } from '../../src/export/export-files.ts';
import { parseExportRequest } from '../../src/export/export-request.ts';
import { exportToFile } from '../../src/export/export-to-file.ts';
import { downloadLinks } from '../../src/http/pages.ts';
import { insertAccount, insertSpot } from '../export/seed.ts';
import { TOKEN, useWebApp } from './web-fixture.ts';

const web = useWebApp('webbeancount');
let accountId: string;

beforeAll(async () => {
  accountId = await insertAccount(web.db.url, 'journal');
  await insertSpot(web.db.url, accountId, [
    { recordId: '1', coin: 'BTC', spotTaxType: 'Deposit', amount: '0.5', balance: '0.5', ts: '2026-01-05T10:00:00Z' },
  ]);
});

describe('the beancount journal on the web page', () => {
  it('streams as text under a .beancount name', async () => {
    const response = await web.app.inject({
      method: 'GET',
      url: `/stream/beancount?accountId=${accountId}&from=2026-01-01&to=2026-01-31`,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.headers['content-disposition']).toBe(
      'attachment; filename="beancount_2026-01-01_2026-01-31.beancount"',
    );
    expect(response.body).toMatch(/^; ledgerline beancount journal of journal/);
    expect(response.body).toContain('2026-02-01 balance Assets:Exchange:Spot:BTC  0.500000000000000000 BTC\n');
  });

  it('downloads an exported journal as text, linked without a spreadsheet form', async () => {
    const request = parseExportRequest({ report: 'beancount', accountId, from: '2026-01-01', to: '2026-01-31' });
    const file = await exportToFile({
      databaseUrl: web.db.url,
      request,
      account: { id: accountId, name: 'journal' },
      csvPath: exportCsvPath(web.exportDir, request),
    });
    const name = 'beancount_2026-01-01_2026-01-31_UTC.beancount';
    expect(file.csvPath.endsWith(name)).toBe(true);
    const response = await web.app.inject({
      method: 'GET',
      url: `/downloads/${accountId}/${name}`,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.body).toContain('record_ids: "1"');
    const links = String(downloadLinks(accountId, name, 'beancount_2026-01-01_2026-01-31_UTC.manifest.json'));
    expect(links).toContain(`>beancount</a>`);
    expect(links).not.toContain('XLSX');
    expect(String(downloadLinks(accountId, 'x.csv', 'x.manifest.json'))).toContain('XLSX');
  });
});
