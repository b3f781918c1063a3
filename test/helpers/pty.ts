import { type ChildProcess, spawn } from 'node:child_process';

import { BIN } from './cli.ts';

/**
 * `ledgerline <args>` in a real pseudo-terminal (util-linux `script`): stdout and stderr are a
 * terminal, as for a person at a shell, so progress bars draw as they do there. `screen` is what
 * the terminal received; `press('\x03')` types Ctrl-C (the terminal sends SIGINT, as for a person).
 */
export interface PtyRun {
  readonly child: ChildProcess;
  /** Everything the terminal received so far (escape sequences included). */
  screen(): string;
  /** Types keys into the terminal. */
  press(keys: string): void;
  /** Resolves once the screen (escapes removed) matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** The command's exit status (script -e passes it through). */
  exited: Promise<number | null>;
}

export function runInPty(
  args: string[],
  env: Record<string, string>,
  /** The program and its first words (default: `node <the CLI>`), and where it runs. */
  options: { entry?: string[]; cwd?: string } = {},
): PtyRun {
  // `exec` so the terminal's foreground process is the CLI itself; 80 columns, as most terminals open.
  const words = [...(options.entry ?? [process.execPath, BIN]), ...args];
  const command = `stty cols 80 rows 24; exec ${words.map(shellQuote).join(' ')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      TERM: 'xterm-256color',
      PAGE_FILL_CANARY_EVERY: '0',
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const check of waiters) check();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    screen: () => output,
    press: (keys) => child.stdin!.write(keys),
    waitFor: (pattern, timeoutMs = 60_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the terminal did not show ${pattern} within ${timeoutMs} ms:\n${plainText(output)}`));
        }, timeoutMs);
        const check = () => {
          if (!pattern.test(plainText(output))) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
  };
}

function shellQuote(word: string): string {
  return /^[\w./:=-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * The terminal's text without its escape sequences, one line per line drawn: a redraw (cursor
 * moved up, line cleared) starts a new line here, so every state a bar was drawn in can be read.
 */
export function plainText(screen: string): string {
  /* eslint-disable no-control-regex -- terminal escape sequences are what is being removed */
  return (
    screen
      // Cursor movements and erasures end what was drawn on that line.
      .replace(/\x1b\[[0-9;?]*[ABCDGHJKf]/g, '\n')
      .replace(/\x1b\[[0-9;?]*[a-zA-Z]/g, '')
      .replace(/\x1b[()][0-9A-Za-z]/g, '')
      .replace(/\r\n?/g, '\n')
      .split('\n')
      .map((line) => line.trimEnd())
      .filter((line) => line.length > 0)
      .join('\n')
  );
  /* eslint-enable no-control-regex */
}
