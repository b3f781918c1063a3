import { Queue } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';

import { QUEUE } from '../../jobs/definitions.ts';
import { AccountService } from '../../src/accounts/account-service.ts';
import { loadConfig } from '../../src/config/config.ts';
import { killSpawned, printed, spawnCli } from '../helpers/cli.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { randomPrefix, TEST_REDIS_URL, useTestRedis } from '../helpers/test-redis.ts';

const db = useTestDatabase('webprefix');
const store = useTestRedis('webprefix');
const TOKEN = 'web-prefix-token-0123456789abcdef0123456789';

afterAll(async () => {
  await killSpawned();
});

describe('ledgerline web and QUEUE_PREFIX', () => {
  it("puts the export jobs it is asked for under the installation's QUEUE_PREFIX, never under the default one", async () => {
    // A prefix QUEUE_PREFIX accepts; the default is what another installation on this Redis would use.
    const prefix = randomPrefix('web').replaceAll(':', '-');
    const { masterKey } = loadConfig({ NODE_ENV: 'test' });
    const account = await new AccountService(db.prisma, masterKey).add({
      name: 'acme',
      baseUrl: 'http://127.0.0.1:9',
      apiKey: 'bg_0123456789abcdef0123456789abcdef',
      secretKey: 'secret',
      passphrase: 'passphrase',
      uid: '1000000001',
      isBrokerParent: false,
      isUnifiedAccount: false,
    });
    const web = spawnCli(['web', '--no-worker'], {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: prefix,
      LEDGERLINE_WEB_TOKEN: TOKEN,
      WEB_PORT: '0',
    });
    let output = '';
    web.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await printed(web, 'ledgerline web listening on');
    const url = /listening on (http:\/\/\S+)/.exec(output)![1]!;

    const response = await fetch(`${url}/exports`, {
      method: 'POST',
      redirect: 'manual',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        accountId: account.id,
        report: 'spot-ledger',
        from: '2026-01-01',
        to: '2026-01-31',
        tz: 'UTC',
        acceptPartial: '1',
      }).toString(),
    });
    expect(response.status).toBe(303);
    const jobId = decodeURIComponent(response.headers.get('location')!.replace('/jobs/', ''));

    const ours = new Queue(QUEUE.export, { prefix, connection: store.redis });
    const theirs = new Queue(QUEUE.export, { prefix: 'ledgerline', connection: store.redis });
    try {
      expect((await ours.getJob(jobId))?.data).toMatchObject({ accountId: account.id, report: 'spot-ledger' });
      expect(await theirs.getJob(jobId)).toBeUndefined();
    } finally {
      await ours.obliterate({ force: true });
      await ours.close();
      await theirs.close();
    }
  }, 60_000);
});
