import { createServer, type Server } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runCliLive } from '../helpers/cli.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { randomPrefix, TEST_REDIS_URL } from '../helpers/test-redis.ts';

const db = useTestDatabase('webport');
let taken: Server;
let port: number;

beforeAll(async () => {
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  port = (taken.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

describe('ledgerline web on a port another program holds', () => {
  it('says so in one line naming WEB_PORT, exit 2, no EADDRINUSE stack', async () => {
    const result = await runCliLive(['web', '--no-worker'], {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: randomPrefix('webport').replaceAll(':', '-'),
      LEDGERLINE_WEB_TOKEN: 'a-web-token-of-at-least-thirty-two-chars',
      WEB_HOST: '127.0.0.1',
      WEB_PORT: String(port),
    });
    expect(result.stderr).toBe(
      `ConfigError: WEB_PORT: port ${port} on 127.0.0.1 is already in use by another program: set WEB_PORT (or WEB_HOST) to a free one`,
    );
    expect(result.status).toBe(2);
  });
});
