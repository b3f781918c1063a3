import { spawnSync } from 'node:child_process';

/** bean-check is not on PATH: the beancount journal's tests cannot judge a journal without it. */
export class BeanCheckMissingError extends Error {
  constructor() {
    super(
      'bean-check is not installed: the beancount journal tests check each journal with it. ' +
        'Install beancount 2 (Debian/Ubuntu: apt-get install beancount; .ci/run does) and run the tests again.',
    );
    this.name = 'BeanCheckMissingError';
  }
}

/** Runs beancount's `bean-check` on a journal: its exit status and everything it printed. */
export function beanCheck(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
): { status: number | null; output: string } {
  const run = spawnSync('bean-check', [file], { encoding: 'utf8', timeout: 60_000, env });
  if ((run.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') throw new BeanCheckMissingError();
  if (run.error) throw run.error;
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}
