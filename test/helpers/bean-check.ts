import { spawnSync } from 'node:child_process';

/** Runs beancount's `bean-check` on a journal: its exit status and everything it printed. */
export function beanCheck(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
): { status: number | null; output: string } {
  const run = spawnSync('bean-check', [file], { encoding: 'utf8', timeout: 60_000, env });
  if (run.error) throw run.error;
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}
