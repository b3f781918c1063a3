import { availableParallelism } from 'node:os';

import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The tier of a test file is in its name. `*.unit.test.ts` is the `unit` project: it needs neither
 * Postgres nor Redis (pure functions, the in-memory ports, the simulator in-process, configuration
 * parsing); the project points both stores at a port where nothing answers, so a unit test that
 * reaches for one fails instead of passing by luck. Every other `*.test.ts` is `integration` and runs
 * with both stores, so a new file is never in neither project. A test that starts processes of its own
 * (the CLI, the simulator's command) is `integration` even when it needs no store: each child costs
 * seconds of start-up, and the unit tier is the one to run on every save (under 30 s).
 */
const UNIT = ['test/**/*.unit.test.ts'];

export default defineConfig({
  test: {
    // Under CI a stray .only would silently skip the rest of the suite.
    allowOnly: !process.env.CI,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One report for both projects: .ci/run counts every test from it.
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.vitest-report.json' }]] : ['default'],
    // No random canary windows (PAGE_FILL_CANARY_EVERY, src/streams/kit/page-fill.ts): tests count
    // requests and pages exactly. The draw is unit-tested, and a canary window is read as a window
    // without evidence is, which the short-page tests cover.
    env: { NODE_ENV: 'test', LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent', PAGE_FILL_CANARY_EVERY: '0' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: UNIT,
          // These files mostly wait (child processes, the simulator's windows), so one worker per core
          // rather than vitest's cores - 1: on 2 cores that halves the project's time.
          maxWorkers: availableParallelism(),
          // Unit files share each worker's module cache: importing the code under test once per worker
          // instead of once per file takes most of the tier's time off (it was 22 s of imports).
          isolate: false,
          // Projects with different maxWorkers must run as separate groups: the fast unit files first.
          sequence: { groupOrder: 0 },
          // Nothing answers here, so a unit test that reaches for a store fails instead of passing by luck.
          env: {
            DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/unit',
            TEST_DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/unit',
            REDIS_URL: 'redis://127.0.0.1:1',
          },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...UNIT],
          // Two files at a time even on 2 cores: integration files mostly wait (child processes, rate
          // budgets, the simulator's answers), each on its own database and queue prefix; vitest's
          // default (cores - 1) ran them one by one, over 15 minutes.
          maxWorkers: Math.max(2, availableParallelism() - 1),
          // Fails fast when Postgres or Redis is not answering.
          globalSetup: ['test/helpers/global-setup.ts'],
          // A time limit here is a backstop for a hang, never the behaviour under test (that is a
          // benchmark's, or a test's own wide bound): on a machine at load 15-30, beside another
          // `npm test`, a child process takes 5-15 s to start, and a test that starts a few of them
          // passed 30 s without anything being wrong.
          testTimeout: 180_000,
          hookTimeout: 240_000,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
