import path from 'node:path';

import { Command, Option } from 'commander';

import { runTool } from '../cli/run-tool.ts';
import { type Config, DEMO_SETTINGS_FILE } from '../config/config.ts';
import { databaseName } from '../db/ensure-database.ts';
import { PermanentError } from '../errors/index.ts';
import { setRootLogger } from '../logging/logger.ts';
import { demoLogger, demoLogPath, settleDemoLog } from './demo-log-file.ts';
import { demoConfig, demoEnvironment, writeDemoSettings } from './demo-settings.ts';
import { printSummary, rulesMismatched } from './print-summary.ts';
import { type DemoSummary, runDemo } from './run-demo.ts';
import { holdSignalEchoes } from './stop-signals.ts';

class DemoChecksFailedError extends PermanentError {
  constructor() {
    super('the reconciliation found problems (listed above)', { code: 'DEMO_CHECKS_FAILED' });
  }
}

const options = new Command('npm run demo --')
  .description('the main job end to end against the bundled simulator, in a database and queues of its own')
  .option('--serve', 'then keep the simulator, a worker and the web page running until Ctrl-C')
  .addOption(
    new Option('--scale <scale>', "the simulator's data: demo, or tiny (for tests: in a DEMO_DATABASE of its own)")
      .choices(['demo', 'tiny'])
      .default('demo'),
  )
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
  .parse(process.argv)
  .opts<{ serve?: boolean; scale: 'demo' | 'tiny' }>();

/** `npm run demo [-- --serve]`: the main job, end to end, against the bundled simulator. */
await runTool(
  async (installation) => {
    const config = demoConfig(installation);
    // The demo reports its own progress; the workers it runs log only warnings and errors, into a
    // file of their own (never raw JSON between the demo's lines), named at the end if it holds any.
    const logFile = demoLogPath();
    // First of the signal listeners, for the whole run: Ctrl-C at a terminal reaches the demo twice.
    holdSignalEchoes((line) => console.log(`\n${line}`));
    setRootLogger(demoLogger(logFile));
    let succeeded = false;
    try {
      await demo(installation, config, logFile);
      succeeded = true;
    } finally {
      const kept = settleDemoLog(logFile, succeeded);
      if (kept !== undefined) console.log(kept);
    }
  },
  // The demo creates and migrates a database of its own: the installation's need not exist yet.
  // It never reads its own settings file: it writes it.
  { migrated: false, demoSettings: false },
);

/** The demo itself: run, then its closing note (or, with --serve, served until Ctrl-C). */
async function demo(installation: Config, config: Config, logFile: string): Promise<void> {
  const environment = demoEnvironment(installation, config);
  const file = writeDemoSettings(environment);
  const explore = () => {
    console.log('');
    console.log(`To explore it, the CLI reads these from ${file} (the environment still wins):`);
    for (const [name, value] of Object.entries(environment)) console.log(`  export ${name}=${value}`);
  };
  const summary = await runDemo(config, (line) => console.log(line), {
    scale: options.scale,
    logFile,
    ...(options.serve
      ? {
          whileRunning: async (done: DemoSummary) => {
            printSummary(done, config.exportDir);
            explore();
            console.log('');
            console.log(`serving until Ctrl-C: the exchange simulator, a worker and the accountants' page`);
            console.log(`  sign in at http://${config.web.host}:${config.web.port} with the token ${config.web.token}`);
            // Loaded on demand: a plain demo needs neither fastify nor bull-board.
            const { startWeb } = await import('../http/start-web.ts');
            // The demo's own workers run the exports the page requests.
            await startWeb(config, { worker: false });
            // A terminal has echoed the Ctrl-C ("^C") where the cursor was: the line starts on its own.
            console.log(
              `${process.stdout.isTTY ? '\n' : ''}stopped: the page, the worker and the exchange simulator; kept: the database ` +
                `${databaseName(config.databaseUrl)}, the files in ${path.relative(process.cwd(), config.exportDir) || '.'}/ ` +
                `and ${DEMO_SETTINGS_FILE} (npm run demo again reuses them)`,
            );
          },
        }
      : {}),
  });
  if (!options.serve) {
    printSummary(summary, config.exportDir);
    explore();
  }
  if (!summary.reconciliation.passed || rulesMismatched(summary)) throw new DemoChecksFailedError();
}
