import { describe, expect, it } from 'vitest';

import { layeredEnvironment, loadConfig } from '../../src/config/config.ts';
import { databaseName } from '../../src/db/ensure-database.ts';
import { demoConfig, demoEnvironment } from '../../src/demo/demo-settings.ts';

describe("the demo's settings file", () => {
  it('names a DEMO_DATABASE of its own, so a new shell still knows the database is the demo', () => {
    // As the README advises on a shared server: npm run demo with DEMO_DATABASE set.
    const installation = loadConfig({
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/ledgerline',
      DEMO_DATABASE: 'll_demo_shared_jane',
      LEDGERLINE_WEB_TOKEN: 't'.repeat(40),
    });
    const written = demoEnvironment(installation, demoConfig(installation));
    expect(written.DEMO_DATABASE).toBe('ll_demo_shared_jane');
    // A new shell: nothing in its environment but what the file gives.
    const layered = layeredEnvironment({ NODE_ENV: 'development' }, { dotEnv: {}, demo: written });
    const later = loadConfig(layered.env);
    // What `status` checks before saying "no schedules in the demo" (not "Redis lost it").
    expect(databaseName(later.databaseUrl)).toBe(later.demoDatabase);
    expect(later.queuePrefix).toBe(demoConfig(installation).queuePrefix);
  });
});
