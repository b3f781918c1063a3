import { afterEach, describe, expect, it } from 'vitest';

import { holdThroughStop } from '../../src/demo/stop-signals.ts';

let release: (() => void) | undefined;
afterEach(() => release?.());

describe('holdThroughStop', () => {
  it("ignores the terminal's echo of one Ctrl-C, and stops at once on a second press later", async () => {
    const said: string[] = [];
    const exits: number[] = [];
    release = holdThroughStop(
      (line) => said.push(line),
      200,
      (code) => exits.push(code),
    );
    process.emit('SIGINT', 'SIGINT');
    process.emit('SIGINT', 'SIGINT'); // tsx passing the same Ctrl-C on, milliseconds later
    expect(exits).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 250));
    process.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([130]);
    expect(said).toEqual(['SIGINT again while stopping: stopped at once (the database and the files are kept)']);
  });

  it('keeps a listener while it holds, so no signal falls to the default that ends the process', () => {
    const before = process.listenerCount('SIGINT');
    release = holdThroughStop(() => undefined);
    expect(process.listenerCount('SIGINT')).toBe(before + 1);
    expect(process.listenerCount('SIGTERM')).toBeGreaterThan(0);
    release();
    release = undefined;
    expect(process.listenerCount('SIGINT')).toBe(before);
  });
});
