import { describe, expect, it } from 'vitest';

import { createExportProcessor } from '../../jobs/export/export-processor.ts';
import type { ExportJob } from '../../jobs/payloads/export-job.ts';
import { AccountService } from '../../src/accounts/account-service.ts';
import { loadConfig } from '../../src/config/config.ts';
import { runCli } from '../helpers/cli.ts';
import { TEST_REDIS_URL } from '../helpers/test-redis.ts';
import { TOKEN, useWebApp } from '../http/web-fixture.ts';

const web = useWebApp('outofrange');
const LAST_DAY = '9999-12-31';
const RULE = 'to: must end the period within the year 9999 (UTC): 9999-12-30 at the latest (got "9999-12-31")';

async function account(): Promise<string> {
  const { masterKey } = loadConfig({ NODE_ENV: 'test' });
  const accounts = new AccountService(web.db.prisma, masterKey);
  const existing = (await accounts.list()).find((a) => a.name === 'acme');
  if (existing) return existing.id;
  const added = await accounts.add({
    name: 'acme',
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'bg_0123456789abcdef0123456789abcdef',
    secretKey: 'secret',
    passphrase: 'passphrase',
    uid: '1000000001',
    isBrokerParent: false,
    isUnifiedAccount: false,
  });
  return added.id;
}

describe('inputs out of range: refused alike by the CLI, the web form and job payloads', () => {
  const env = () => ({ DATABASE_URL: web.db.url, REDIS_URL: TEST_REDIS_URL });

  it(`export --to ${LAST_DAY}: one line naming "to", exit 2 (it died inside Postgres)`, async () => {
    await account();
    const result = runCli(
      ['export', '--report', 'spot-ledger', '--account', 'acme', '--from', '2026-01-01', '--to', LAST_DAY],
      env(),
    );
    expect([result.status, result.stderr, result.stdout]).toEqual([2, `ValidationError: ${RULE}`, '']);
  });

  it('backfill --from before 1970 or with an offset beyond +14:00: named as --from, not as a Unix-ms parameter', () => {
    for (const [from, rule] of [
      ['1969-12-31', 'must be a time in the years 1970 to 9999 (UTC)'],
      ['2026-01-01T00:00:00+15:00', 'must have a UTC offset from -14:00 to +14:00'],
      ['9007199254740993', 'must be a time in the years 1970 to 9999 (UTC)'],
    ]) {
      const result = runCli(['backfill', '--account', 'acme', '--stream', 'spot', '--from', from!], env());
      expect([result.status, result.stderr]).toEqual([2, `ValidationError: --from: ${rule} (got "${from}")`]);
    }
  });

  it('the web form shows the same rule and enqueues nothing', async () => {
    const accountId = await account();
    const response = await web.app.inject({
      method: 'POST',
      url: '/exports',
      payload: new URLSearchParams({
        accountId,
        report: 'spot-ledger',
        from: '2026-01-01',
        to: LAST_DAY,
        tz: 'UTC',
      }).toString(),
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.body).toContain(RULE.replaceAll('"', '&quot;'));
    expect(await web.queue.count()).toBe(0);
  });

  it('a job payload carrying it fails at once (no retries), with the same rule', async () => {
    const accountId = await account();
    const process = createExportProcessor({ databaseUrl: web.db.url, exportDir: web.exportDir, prisma: web.db.prisma });
    const job = {
      data: { accountId, report: 'spot-ledger', from: '2026-01-01', to: LAST_DAY, tz: 'UTC' },
    } as unknown as ExportJob;
    await expect(process(job)).rejects.toMatchObject({
      name: 'UnrecoverableError',
      message: `ValidationError: ${RULE}`,
    });
  });
});
