import { describe, expect, it } from 'vitest';

import { runCliLive } from '../helpers/cli.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const db = useTestDatabase('migrateexits');

describe('ledgerline migrate', () => {
  // It took 11.3 s here before: the schema engine's 10 s lock-timeout timer and its adapter's
  // idle pg pool kept the process alive after the work (1.5 s once both are closed). The margin
  // is wide for shared cores; a regression lands back above 10 s.
  it('on an up-to-date database exits 0 within a few seconds', async () => {
    const started = Date.now();
    const result = await runCliLive(['migrate'], { DATABASE_URL: db.url });
    const ms = Date.now() - started;
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^database ll_migrateexits_[0-9a-f]+ is up to date: no migration applied$/m);
    expect(result.status).toBe(0);
    expect(ms).toBeLessThan(8_000);
  }, 30_000);
});
