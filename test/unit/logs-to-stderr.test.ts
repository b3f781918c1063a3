import { spawnSync } from 'node:child_process';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

const LOGGER = path.resolve(import.meta.dirname, '../../src/logging/logger.ts');

/** Runs a script in a fresh Node (the logger's default destination is the process's own fd 2). */
function run(script: string) {
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_ENV: 'test', LOG_LEVEL: 'info' },
    timeout: 30_000,
  });
}

describe('the root logger', () => {
  it('writes JSON lines to stderr, never to stdout, also when the process exits right after logging', () => {
    const result = run(
      `import { logger } from ${JSON.stringify(LOGGER)};
       logger('probe').info({ n: 1 }, 'a log line');
       console.log('output for the reader');
       process.exit(0);`,
    );
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('output for the reader\n');
    const line = JSON.parse(result.stderr.trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 30, module: 'probe', n: 1, msg: 'a log line' });
  });

  it('pretty output (for a terminal) goes to stderr as well', () => {
    const result = run(
      `import { createRootLogger } from ${JSON.stringify(LOGGER)};
       createRootLogger({ level: 'info', pretty: true }).info('a pretty line');
       setTimeout(() => undefined, 300);`,
    );
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^\[\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\] INFO \(\d+\): a pretty line$/m);
  });
});
