/**
 * Ctrl-C at a terminal reaches the demo twice: the terminal sends SIGINT to every process of its
 * foreground group, and tsx (`npm run demo` runs the demo under it) passes it on as well,
 * milliseconds later. The demo's own handlers are `once` (the backfill's watch says how far it got,
 * the page stops), so the second came to Node's default (tsx's: exit 130) and ended the process
 * before it said anything, or halfway through stopping. Installed first, this listener sees every
 * signal before the others: within `graceMs` of the last one it is that echo and is ignored; a
 * signal no other listener takes (a person pressing again while the demo stops, or at a moment no
 * handler is waiting) stops the process at once, saying so.
 */
export function holdSignalEchoes(
  say: (line: string) => void,
  graceMs = 1_000,
  exit: (code: number) => void = (code) => process.exit(code),
): () => void {
  let last: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    const now = Date.now();
    const echo = last !== undefined && now - last < graceMs;
    last = now;
    if (echo || process.listenerCount(signal) > 1) return;
    say(`${signal}: the demo stopped at once; what it stored is kept (npm run demo again resumes)`);
    exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  };
}
