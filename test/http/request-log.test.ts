import { Writable } from 'node:stream';

import { describe, expect, it } from 'vitest';

import { createRootLogger } from '../../src/logging/logger.ts';
import { useWebApp } from './web-fixture.ts';

/** Every line the web server logs, as written. */
const lines: string[] = [];
const destination = new Writable({
  write(chunk: Buffer, _encoding, done) {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});
const web = useWebApp('requestlog', { logger: createRootLogger({ level: 'info', destination, pretty: false }) });

describe('the web server’s request log', () => {
  it('never writes a query string: a token put in a URL is not in the log, the path is', async () => {
    const secret = 'tok-9f8e7d6c5b4a39281706f5e4d3c2b1a0';
    const answer = await web.app.inject({ method: 'GET', url: `/exports?token=${secret}&session=${secret}` });
    expect(answer.statusCode).toBeGreaterThanOrEqual(200);
    await web.app.inject({ method: 'GET', url: `/no-such-page?access_token=${secret}` });
    const written = lines.join('\n');
    expect(written).toMatch(/"url":"\/exports\?\[redacted\]"/);
    expect(written).toMatch(/"url":"\/no-such-page\?\[redacted\]"/);
    expect(written).not.toContain(secret);
  });
});
