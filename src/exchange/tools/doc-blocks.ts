import path from 'node:path';

/**
 * The repository's own statement of the exchange contract. Code comments cite
 * its sections (`docs/exchange-api.md §4.1`); tests read its marked blocks, so
 * a clone of this repository alone can check the code against the contract.
 */
export const EXCHANGE_API_DOC = path.resolve(import.meta.dirname, '../../../docs/exchange-api.md');

function markers(name: string): { start: string; end: string } {
  return { start: `<!-- ${name}:start -->`, end: `<!-- ${name}:end -->` };
}

/** The text between `<!-- name:start -->` and `<!-- name:end -->`, markers excluded. Throws when absent. */
export function markedBlock(text: string, name: string): string {
  const { start, end } = markers(name);
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to === -1 || to < from) throw new Error(`no block ${start} ... ${end}`);
  if (text.indexOf(start, from + start.length) !== -1) throw new Error(`block ${start} appears twice`);
  return text.slice(from + start.length, to);
}

/** `text` with the content of one marked block replaced (one blank line kept on each side of the content). */
export function replaceMarkedBlock(text: string, name: string, content: string): string {
  const { start } = markers(name);
  const old = markedBlock(text, name);
  const from = text.indexOf(start) + start.length;
  return `${text.slice(0, from)}\n\n${content.trim()}\n\n${text.slice(from + old.length)}`;
}

/**
 * The lines of the one fenced code block inside `block`, exactly as written
 * (no trimming: a value's own spaces would matter), blank lines left out.
 */
export function fencedLines(block: string): string[] {
  const lines = block.split('\n');
  const open = lines.findIndex((line) => line.startsWith('```'));
  const close = lines.findIndex((line, i) => i > open && line.startsWith('```'));
  if (open === -1 || close === -1) throw new Error('no fenced code block');
  return lines.slice(open + 1, close).filter((line) => line !== '');
}
