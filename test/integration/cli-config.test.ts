import { spawnSync } from 'node:child_process';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

const BIN = path.resolve(import.meta.dirname, '../../bin/ledgerline.js');

function run(args: string[], env: Record<string, string>) {
  const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
  const result = spawnSync(process.execPath, [BIN, ...args], { env: { ...base, ...env }, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr.trim() };
}

describe('bad configuration', () => {
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['malformed DATABASE_URL', { DATABASE_URL: 'mysql://127.0.0.1/x' }, /^ConfigError: DATABASE_URL: must be a URL/],
    [
      'missing master key in production',
      { NODE_ENV: 'production' },
      /^ConfigError: LEDGERLINE_MASTER_KEY: is required in production/,
    ],
    [
      'short master key in production',
      { NODE_ENV: 'production', LEDGERLINE_MASTER_KEY: 'deadbeef' },
      /^ConfigError: LEDGERLINE_MASTER_KEY: must be 32 random bytes/,
    ],
  ];

  it.each(cases)('%s: exits non-zero with one line naming the variable and rule', (_name, env, message) => {
    for (const command of [['config'], ['migrate']]) {
      const result = run(command, env);
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.split('\n')).toHaveLength(1);
      expect(result.stderr).not.toMatch(/\bat .+:\d+:\d+/);
      expect(result.stdout).toBe('');
    }
  });

  it('prints a valid configuration with the master key fingerprinted, never shown', () => {
    const key = 'a3f1c2e4b5d6978812ab34cd56ef7890a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const result = run(['config'], { NODE_ENV: 'production', LEDGERLINE_MASTER_KEY: key });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^masterKey\s+fingerprint [0-9a-f]{12}$/m);
    expect(result.stdout).not.toContain(key.slice(0, 8));
    expect(result.stdout).not.toContain(key.slice(-8));
  });

  it("prints every setting, with tokens, passwords and a webhook URL's path masked", () => {
    const token = 'b'.repeat(64);
    const result = run(['config'], {
      DATABASE_URL: 'postgresql://app:dbpassword@127.0.0.1:5432/ledgerline',
      LEDGERLINE_WEB_TOKEN: token,
      ALERT_WEBHOOK_URL: 'https://hooks.example/services/T0/B0/hooksecret',
    });
    expect(result.status).toBe(0);
    for (const name of [
      'databaseUrl',
      'queuePrefix',
      'sync.lookbackMs',
      'schedules.nightly',
      'web.port',
      'monthlyExports.tz',
    ]) {
      expect(result.stdout).toMatch(new RegExp(`^${name.replace('.', '\\.')}\\s+\\S`, 'm'));
    }
    expect(result.stdout).toMatch(/^web\.token\s+set \(hidden\)$/m);
    expect(result.stdout).toMatch(/^alerts\.webhookUrl\s+https:\/\/hooks\.example\/\*\*\*\*$/m);
    for (const secret of [token, 'dbpassword', 'hooksecret']) expect(result.stdout).not.toContain(secret);
  });
});
