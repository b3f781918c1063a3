import { createHash } from 'node:crypto';

import type { Command } from 'commander';

import type { Config } from '../../config/config.ts';
import { DEVELOPMENT_MASTER_KEY } from '../../config/env-schema.ts';
import { runTool } from '../run-tool.ts';

/** Settings that are secrets as a whole: shown only as set or not. */
const SECRET_SETTINGS = new Set(['web.token', 'web.adminToken']);

/** A URL with its password (and, for a webhook, its path: Slack-style URLs carry their token there) masked. */
function maskUrl(value: string, maskPath: boolean): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = '****';
    if (maskPath && url.pathname.length > 1) url.pathname = '/****';
    return url.toString();
  } catch {
    return '****';
  }
}

/** One setting as printed: secrets masked, the master key as a fingerprint that tells two keys apart. */
function shown(name: string, value: unknown): string {
  if (name === 'masterKey' && Buffer.isBuffer(value)) {
    const fingerprint = createHash('sha256').update(value).digest('hex').slice(0, 12);
    const development = value.toString('hex') === DEVELOPMENT_MASTER_KEY ? ' (development key)' : '';
    return `fingerprint ${fingerprint}${development}`;
  }
  if (SECRET_SETTINGS.has(name)) return value === undefined ? 'not set' : 'set (hidden)';
  if (value === undefined) return 'not set';
  if (typeof value === 'string' && (name === 'databaseUrl' || name === 'redisUrl')) return maskUrl(value, false);
  if (typeof value === 'string' && name === 'alerts.webhookUrl') return maskUrl(value, true);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Every leaf of the configuration with its dotted name, in the Config's own order. */
export function configLines(config: Config): [string, string][] {
  const lines: [string, string][] = [];
  const walk = (prefix: string, value: object) => {
    for (const [key, inner] of Object.entries(value)) {
      const name = prefix ? `${prefix}.${key}` : key;
      const leaf = inner === null || typeof inner !== 'object' || Array.isArray(inner) || Buffer.isBuffer(inner);
      if (leaf || SECRET_SETTINGS.has(name)) lines.push([name, shown(name, inner)]);
      else walk(name, inner as object);
    }
  };
  walk('', config);
  return lines;
}

export function registerConfigCommands(program: Command): void {
  program
    .command('config')
    .description('validate the configuration and print every setting (secrets masked)')
    .action(() =>
      runTool(
        async (config) => {
          const lines = configLines(config);
          const width = Math.max(...lines.map(([name]) => name.length));
          for (const [name, value] of lines) console.log(`${name.padEnd(width)}  ${value}`);
        },
        { needs: [] },
      ),
    );
}
