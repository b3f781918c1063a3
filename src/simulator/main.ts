import { CommanderError } from 'commander';

import { getConfig } from '../config/config.ts';
import { anchorFromFile } from './anchor-file.ts';
import { parseCliOptions } from './cli-options.ts';
import { startSimulator } from './start.ts';

/** `npm run simulator -- --port 8080 --seed 42 --scale demo`: serves until interrupted. */
async function main(): Promise<void> {
  let options;
  try {
    options = parseCliOptions(process.argv, getConfig().env === 'test');
  } catch (error) {
    // Commander has already printed its one-line message (or the help text).
    process.exit(error instanceof CommanderError ? error.exitCode : 1);
  }
  const started = Date.now();
  const { anchorFile, ...simulatorOptions } = options;
  if (anchorFile !== undefined) simulatorOptions.anchor = anchorFromFile(anchorFile, options.now ?? started);
  const sim = await startSimulator(simulatorOptions);
  const scale = sim.context.scale;
  const limits = sim.context.rateLimits.options;
  const d = sim.demo;
  process.stdout.write(
    [
      `ledgerline exchange simulator listening on ${sim.url}`,
      `  seed ${sim.context.seed}; ${scale.spotRecords} spot records, ${scale.positions} positions, ${scale.transfers} transfers` +
        ` (generated in ${Date.now() - started} ms)`,
      `  rate limits ${limits.enabled ? `on (x${limits.factor})` : 'off'}; admin API ${options.admin ? `on at ${sim.url}/__sim` : 'off (use --admin)'}`,
      '',
      `Demo account (main account, broker parent, unified trading account; key bound to ${boundTo(sim.context.demo.key.ipList)}):`,
      `  uid         ${d.uid}`,
      `  API key     ${d.apiKey}`,
      `  secret key  ${d.secretKey}`,
      `  passphrase  ${d.passphrase}`,
      '',
    ].join('\n'),
  );
  const stop = () => {
    void sim.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** "127.0.0.1, ::1 and 172.29.57.10": loopback's IPv4-mapped spelling left out, as before. */
function boundTo(ipList: string[]): string {
  const shown = ipList.filter((ip) => !ip.startsWith('::ffff:'));
  return shown.length < 2 ? shown.join('') : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)!}`;
}

main().catch((error: unknown) => {
  process.stderr.write(`simulator: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
