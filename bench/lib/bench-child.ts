import { spawn } from 'node:child_process';

/**
 * Runs `script --child ...args` in a Node process of its own (through tsx, logs silenced) and
 * resolves with the JSON object it prints as its last stdout line. A benchmark measures each run
 * in its own process so that the peak RSS it reports (the kernel's maxRSS) is that run's alone.
 */
export function runBenchChild<T>(script: string, args: string[], nodeFlags: string[] = []): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const proc = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', script, '--child', ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    let stdout = '';
    proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    proc.on('error', reject);
    proc.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`${script} child exited with ${code}`));
      resolve(JSON.parse(stdout.trim().split('\n').pop()!) as T);
    });
  });
}
