import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';

/**
 * Asks for a secret on the terminal without echoing it. Returns undefined
 * when stdin is not a terminal (scripts must pass secrets by environment).
 */
export async function promptSecret(question: string): Promise<string | undefined> {
  if (!process.stdin.isTTY) return undefined;
  let muted = false;
  const output = new Writable({
    write(chunk, _encoding, callback) {
      if (!muted) process.stderr.write(chunk);
      callback();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  try {
    const answer = new Promise<string>((resolve) => rl.question(question, resolve));
    muted = true;
    const value = await answer;
    process.stderr.write('\n');
    return value;
  } finally {
    rl.close();
  }
}
