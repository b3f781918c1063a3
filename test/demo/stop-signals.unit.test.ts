import { afterEach, describe, expect, it } from 'vitest';

import { holdSignalEchoes } from '../../src/demo/stop-signals.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function held(graceMs: number) {
  const said: string[] = [];
  const exits: number[] = [];
  cleanups.push(
    holdSignalEchoes(
      (line) => said.push(line),
      graceMs,
      (code) => exits.push(code),
    ),
  );
  return { said, exits };
}

describe('holdSignalEchoes', () => {
  it("leaves a Ctrl-C to the handler waiting for it, and ignores the terminal's echo of it after that handler is gone", () => {
    const { said, exits } = held(10_000);
    const handled: string[] = [];
    process.once('SIGINT', () => handled.push('watch'));
    process.emit('SIGINT', 'SIGINT');
    // tsx passing the same Ctrl-C on, milliseconds later: no handler left, still not the default's exit.
    process.emit('SIGINT', 'SIGINT');
    expect(handled).toEqual(['watch']);
    expect(exits).toEqual([]);
    expect(said).toEqual([]);
  });

  it('stops at once, saying so, on a Ctrl-C no handler takes (a second press while stopping)', async () => {
    const { said, exits } = held(100);
    process.once('SIGINT', () => undefined);
    process.emit('SIGINT', 'SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 150));
    process.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([130]);
    expect(said).toEqual(['SIGINT: the demo stopped at once; what it stored is kept (npm run demo again resumes)']);
  });

  it('keeps a listener while it holds, so no signal falls to the default that ends the process', () => {
    const before = process.listenerCount('SIGINT');
    const release = holdSignalEchoes(() => undefined);
    expect(process.listenerCount('SIGINT')).toBe(before + 1);
    release();
    expect(process.listenerCount('SIGINT')).toBe(before);
  });
});
