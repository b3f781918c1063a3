import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { beanCheck } from '../helpers/bean-check.ts';

/*
 * The beancount journal's tests need beancount's bean-check, which `npm install` cannot bring.
 * Without it they must fail saying what to install, not with spawnSync's bare ENOENT. Both paths
 * run here on a PATH of the test's own making: an empty directory, or one holding a stand-in.
 */
const dir = mkdtempSync(path.join(tmpdir(), 'll-bean-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function pathWith(files: Record<string, string>): NodeJS.ProcessEnv {
  const bin = mkdtempSync(path.join(dir, 'bin-'));
  for (const [name, script] of Object.entries(files)) {
    writeFileSync(path.join(bin, name), script);
    chmodSync(path.join(bin, name), 0o755);
  }
  return { ...process.env, PATH: bin };
}

describe('the bean-check prerequisite', () => {
  it('a missing bean-check fails with one line naming the package to install, not a raw ENOENT', () => {
    let thrown: unknown;
    try {
      beanCheck(path.join(dir, 'journal.beancount'), pathWith({}));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    const message = (thrown as Error).message;
    expect(message).toMatch(/bean-check is not installed/);
    expect(message).toContain('apt-get install beancount');
    expect(message).not.toMatch(/^spawnSync/);
    expect(message.split('\n')).toHaveLength(1);
  });

  it('an installed bean-check is run on the file, its status and output returned', () => {
    const env = pathWith({ 'bean-check': '#!/bin/sh\necho "checked $1"\necho "1 error" >&2\nexit 1\n' });
    expect(beanCheck('/tmp/some.beancount', env)).toEqual({
      status: 1,
      output: 'checked /tmp/some.beancount\n1 error\n',
    });
  });
});
