import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';

import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The `unit` project: every test file that needs neither Postgres nor Redis (pure functions, the
 * simulator in-process, configuration parsing). Each was shown to pass with both unreachable (run in
 * a network namespace of its own, where nothing listens on 5432 or 6379). A file that needs either
 * store even in one test belongs to `integration`.
 *
 * `integration` is every other test file (all minus this list), so a new file is never in neither
 * project: it runs with the stores until someone proves it needs none and adds it here.
 */
const UNIT = [
  'test/accounting/memory-price-book.test.ts',
  'test/accounting/price-book-property.test.ts',
  'test/accounting/lot-engine.test.ts',
  'test/accounting/lot-engine-property.test.ts',
  'test/accounting/walk-history.test.ts',
  'test/accounting/beancount-names.test.ts',
  'test/accounting/bean-check-prerequisite.test.ts',
  'test/exchange/parse-answer.test.ts',
  'test/exchange/recorded-answers.test.ts',
  'test/exchange/retry-policy.test.ts',
  'test/exchange/signer.test.ts',
  'test/exchange/window-planner.test.ts',
  'test/export/config-export.test.ts',
  'test/export/csv-encoder.test.ts',
  'test/export/export-request.test.ts',
  'test/export/flag-stripper.test.ts',
  'test/export/inline-params.test.ts',
  'test/export/spot-tax-types.test.ts',
  'test/http/resilience.test.ts',
  'test/integration/cli-config.test.ts',
  'test/management/plan.test.ts',
  'test/ops/compose-file.test.ts',
  'test/ops/node-version.test.ts',
  'test/ops/readme.test.ts',
  'test/reconcile/format-report.test.ts',
  'test/reconcile/fresh-reads.test.ts',
  'test/streams/stream-declarations.test.ts',
  'test/simulator/admin.test.ts',
  'test/simulator/anchor.test.ts',
  'test/simulator/anchor-file.test.ts',
  'test/simulator/auth.test.ts',
  'test/simulator/cancel-orders.test.ts',
  'test/simulator/cli.test.ts',
  'test/simulator/demo-scale.test.ts',
  'test/simulator/deposit-withdrawal.test.ts',
  'test/simulator/history-position.test.ts',
  'test/simulator/market.test.ts',
  'test/simulator/rate-limit.test.ts',
  'test/simulator/spot-orders.test.ts',
  'test/simulator/spot-record.test.ts',
  'test/simulator/subaccount-apikey.test.ts',
  'test/simulator/subaccount-create.test.ts',
  'test/simulator/units.test.ts',
  'test/unit/config.test.ts',
  'test/unit/redis-cluster-config.test.ts',
  'test/unit/env-example.test.ts',
  'test/unit/exit-codes.test.ts',
  'test/unit/migration-state.test.ts',
  'test/unit/database-failure.test.ts',
  'test/unit/import-direction.test.ts',
  'test/unit/logs-to-stderr.test.ts',
  'test/exchange/endpoint-table.test.ts',
  'test/unit/secret-box.test.ts',
  'test/unit/time-arguments.test.ts',
];

// A renamed or deleted file must leave this list too, or the list silently stops meaning anything.
const missing = UNIT.filter((file) => !existsSync(path.resolve(import.meta.dirname, file)));
if (missing.length > 0) {
  throw new Error(`vitest.config.ts lists unit test files that do not exist: ${missing.join(', ')}`);
}

export default defineConfig({
  test: {
    // Under CI a stray .only would silently skip the rest of the suite.
    allowOnly: !process.env.CI,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One report for both projects: .ci/run counts every test from it.
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.vitest-report.json' }]] : ['default'],
    env: { NODE_ENV: 'test', LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: UNIT,
          // These files mostly wait (child processes, the simulator's windows), so one worker per core
          // rather than vitest's cores - 1: on 2 cores that halves the project's time.
          maxWorkers: availableParallelism(),
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
          // Fails fast when Postgres or Redis is not answering.
          globalSetup: ['test/helpers/global-setup.ts'],
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
