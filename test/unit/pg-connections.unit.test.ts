import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

/*
 * A pg client nobody listens to crashes the process when the server drops its connection (an
 * unhandled 'error' event). src/db/pg-connections.ts opens every pool and client with a listener
 * for its life; this test fails on any other place that constructs one, so a new site cannot
 * forget it. The simulator is not ledgerline's (it opens no database).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const HOME = 'src/db/pg-connections.ts';
/** The start-up probe: its own listener, attached before it connects under a deadline. */
const OWN_LISTENER = ['src/cli/check-services.ts'];

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return relative === 'src/generated' ? [] : sources(relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}

const CONSTRUCTS = /new\s+(pg\.)?(Pool|Client)\s*\(/g;

describe('every Postgres connection has an error listener for its life', () => {
  it('no pool or client is constructed outside src/db/pg-connections.ts', () => {
    const found: string[] = [];
    for (const file of [...sources('src'), ...sources('jobs')]) {
      if (file === HOME || OWN_LISTENER.includes(file)) continue;
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      // Pool and Client of pg only: undici's Pool (the exchange's transport) is not a database's.
      const fromPg = /from 'pg'/.test(text);
      for (const match of text.matchAll(CONSTRUCTS)) {
        if (match[1] !== undefined || fromPg) found.push(`${file}: ${match[0]}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('the probe that constructs its own attaches a listener before it connects', () => {
    for (const file of OWN_LISTENER) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      expect(text.indexOf(`client.on('error'`)).toBeGreaterThan(-1);
      expect(text.indexOf(`client.on('error'`)).toBeLessThan(text.indexOf('client.connect()'));
    }
  });
});
