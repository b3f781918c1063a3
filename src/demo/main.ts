import path from 'node:path';

import { runTool } from '../cli/run-tool.ts';
import type { Config } from '../config/config.ts';
import { withDatabase } from '../db/ensure-database.ts';
import { PermanentError } from '../errors/index.ts';
import { createRootLogger, setRootLogger } from '../logging/logger.ts';
import { runDemo } from './run-demo.ts';

class DemoChecksFailedError extends PermanentError {
  constructor() {
    super('the reconciliation found problems (listed above)', { code: 'DEMO_CHECKS_FAILED' });
  }
}

/** The demo's own database, on the server DATABASE_URL names: never the installation's. */
const DEMO_DATABASE = 'ledgerline_demo';

/**
 * The demo's configuration: its own database and queue prefix, so its simulator account, rows
 * and jobs never mix with a real installation's (whose worker would otherwise take its jobs).
 */
function demoConfig(config: Config): Config {
  return {
    ...config,
    databaseUrl: withDatabase(config.databaseUrl, DEMO_DATABASE),
    queuePrefix: `${config.queuePrefix}-demo`,
  };
}

/** `npm run demo`: the main job, end to end, against the bundled simulator. */
await runTool(
  async (installation) => {
    const config = demoConfig(installation);
    // The demo reports its own progress; the workers it runs log only warnings and errors.
    setRootLogger(createRootLogger({ level: 'warn' }));
    const summary = await runDemo(config, (line) => console.log(line));
    const { reconciliation: report } = summary;
    console.log('');
    console.log(report.summary);
    console.log('');
    console.log(`ledgerline demo: ${summary.account}, ${summary.seconds.toFixed(1)} s`);
    console.log(`  phases          ${summary.phases.map(([name, s]) => `${name} ${s.toFixed(1)} s`).join(', ')}`);
    console.log(
      `  rows stored     positions ${summary.rows.positions}, spot ${summary.rows.spot}, transfers ${summary.rows.transfers}, futures ledger ${summary.rows['futures-ledger']}`,
    );
    const passed = report.checks.filter((c) => c.passed).length;
    console.log(`  checks          ${passed}/${report.checks.length} passed${report.passed ? '' : ' (FAILED)'}`);
    console.log(`  reports         ${path.relative(process.cwd(), config.exportDir) || '.'}/`);
    const width = Math.max(...summary.reports.map((r) => r.report.length));
    for (const r of summary.reports) {
      console.log(
        `    ${r.report.padEnd(width)} ${String(r.rows).padStart(6)} rows  ${path.relative(process.cwd(), r.csvPath)}` +
          (r.unpairedLegs > 0 ? `  (${r.unpairedLegs} unpaired trade legs)` : '') +
          (r.gap ? `  (partial: ${r.gap})` : ''),
      );
    }
    if (!report.passed) throw new DemoChecksFailedError();
    // The demo creates and migrates a database of its own: the installation's need not exist yet.
  },
  { migrated: false },
);
