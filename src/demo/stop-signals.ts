/**
 * Holds the process through its stop once the first Ctrl-C (SIGINT) or SIGTERM has come. A terminal
 * sends Ctrl-C to every process of its foreground group and tsx passes it on to the demo as well, so
 * the demo meets that one Ctrl-C twice, milliseconds apart. With no listener left for the second
 * (the page's is a `once`), Node's default (tsx's: exit 130) ended the process halfway through
 * stopping the page, the worker and the simulator. A signal within `graceMs` of the first is that
 * echo and is ignored; a later one is a person pressing again, and stops the process at once.
 */
export function holdThroughStop(
  say: (line: string) => void,
  graceMs = 1_000,
  exit: (code: number) => void = (code) => process.exit(code),
): () => void {
  let first: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    const now = Date.now();
    if (first === undefined || now - first < graceMs) {
      first ??= now;
      return;
    }
    say(`${signal} again while stopping: stopped at once (the database and the files are kept)`);
    exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  };
}
