import { Command, InvalidArgumentError, Option } from 'commander';

import { isValidIp } from './auth/ip.ts';
import type { ScaleOption } from './data/scale.ts';
import type { SimulatorOptions } from './types.ts';

/** Parses the shell's arguments into SimulatorOptions; a bad value ends in one clear line. */
export function parseCliOptions(
  argv: string[],
  testMode: boolean,
): SimulatorOptions & { admin: boolean; anchorFile?: string } {
  const program = new Command()
    .name('simulator')
    .description('The ledgerline exchange simulator: the 12 endpoints of the trading API, on seeded data.')
    .option(
      '--port <port>',
      "TCP port (0 picks a free one; 8090 by default, apart from the web page's 8080)",
      parsePort,
      8090,
    )
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--seed <seed>', 'seed of the generated data and credentials', parseSeed, 42)
    .option('--scale <scale>', 'tiny, demo, bench or a number of spot records', parseScale, 'demo' as ScaleOption)
    .option('--no-rate-limits', 'switch the rate limits off')
    .option('--rate-limit-factor <factor>', 'multiply every rate-limit budget', parseFactor, 1)
    .addOption(
      new Option('--timestamp-spelling <spelling>', 'history-position timestamps: ctime/utime or cTime/uTime')
        .choices(['lower', 'camel'])
        .default('lower'),
    )
    .addOption(
      new Option('--answer-shapes <shapes>', 'documented answers, or the shapes the real exchange was recorded giving')
        .choices(['documented', 'recorded'])
        .default('documented'),
    )
    .option('--now <ms>', 'start the simulated clock frozen at this Unix ms time', parseNow)
    .option(
      '--anchor <ms|today>',
      'lay the history out from this Unix ms time, or the start of the UTC day',
      parseAnchor,
    )
    .addOption(
      new Option(
        '--anchor-file <path>',
        'keep the anchor in this file: read it back, or write the start of the UTC day on a first start',
      ).conflicts('anchor'),
    )
    .option('--demo-ip <address>', 'also bind the demo key to this address (repeatable)', collectIp, [] as string[])
    .option('--admin', 'serve the /__sim admin API')
    .option(
      '--request-log-size <n>',
      'how many of the last requests GET /__sim/requests keeps (a fleet bench needs its whole night)',
      parseLogSize,
      10_000,
    )
    .option('--demo', 'demo mode: serves the /__sim admin API')
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text.split('\n')[0] + '\n') });
  program.parse(argv);
  const o = program.opts<{
    port: number;
    host: string;
    seed: number;
    scale: ScaleOption;
    rateLimits: boolean;
    rateLimitFactor: number;
    timestampSpelling: 'lower' | 'camel';
    answerShapes: 'documented' | 'recorded';
    now?: number;
    anchor?: number;
    anchorFile?: string;
    demoIp: string[];
    admin?: boolean;
    demo?: boolean;
    requestLogSize: number;
  }>();
  return {
    port: o.port,
    host: o.host,
    seed: o.seed,
    scale: o.scale,
    rateLimits: { enabled: o.rateLimits, factor: o.rateLimitFactor },
    timestampSpelling: o.timestampSpelling,
    answerShapes: o.answerShapes,
    ...(o.now === undefined ? {} : { now: o.now }),
    ...(o.anchor === undefined ? {} : { anchor: o.anchor }),
    ...(o.anchorFile === undefined ? {} : { anchorFile: o.anchorFile }),
    ...(o.demoIp.length === 0 ? {} : { demoIps: o.demoIp }),
    admin: Boolean(o.admin || o.demo || testMode),
    requestLogSize: o.requestLogSize,
  };
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError('port must be an integer from 0 to 65535.');
  return port;
}

function parseSeed(value: string): number {
  if (!/^-?\d{1,15}$/.test(value)) throw new InvalidArgumentError('seed must be an integer.');
  return Number(value);
}

function parseScale(value: string): ScaleOption {
  if (value === 'tiny' || value === 'demo' || value === 'bench') return value;
  if (/^\d{1,8}$/.test(value) && Number(value) <= 20_000_000) return { spotRecords: Number(value) };
  throw new InvalidArgumentError('scale must be tiny, demo, bench or a number of spot records up to 20000000.');
}

function parseLogSize(value: string): number {
  if (!/^\d{1,8}$/.test(value) || Number(value) < 1)
    throw new InvalidArgumentError('request log size must be a positive integer.');
  return Number(value);
}

function parseFactor(value: string): number {
  const factor = Number(value);
  if (!(factor > 0) || !Number.isFinite(factor)) throw new InvalidArgumentError('factor must be a positive number.');
  return factor;
}

function parseNow(value: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new InvalidArgumentError('now must be Unix milliseconds.');
  return Number(value);
}

function parseAnchor(value: string): number {
  if (value === 'today') return Math.floor(Date.now() / 86_400_000) * 86_400_000;
  if (!/^\d{1,15}$/.test(value)) throw new InvalidArgumentError('anchor must be Unix milliseconds or "today".');
  return Number(value);
}

function collectIp(value: string, previous: string[]): string[] {
  if (!isValidIp(value)) throw new InvalidArgumentError('demo-ip must be an IPv4 or IPv6 address.');
  return [...previous, value];
}
