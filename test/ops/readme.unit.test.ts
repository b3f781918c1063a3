import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { EXIT } from '../../src/cli/exit-codes.ts';

/*
 * The README is a newcomer's first page: short, with the two commands, and links to the reference
 * pages in docs/ for the rest. These tests keep it short and keep what moved out of it reachable.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const readme = read('README.md');
const pages = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The section under a `## ` heading, up to the next heading of that level. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) return '';
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

describe('README.md', () => {
  it('is under 250 lines', () => {
    expect(readme.split('\n').length).toBeLessThan(250);
  });

  it("states the test command .ci/run runs, and the demo's, in its quick start", () => {
    const quickStart = section(readme, 'Quick start');
    expect(quickStart).toMatch(/^npm install && npm run demo\b/m);
    expect(quickStart).toMatch(/^npm test\b/m);
    expect(read('.ci/run')).toMatch(/^npm test\b/m);
  });

  it("keeps the exit-code table, one row for each of the CLI's exit codes", () => {
    const rows = [...section(readme, 'Exit codes').matchAll(/^\| `(\d+)` +\|/gm)].map((m) => Number(m[1]));
    expect(rows).toEqual(Object.values(EXIT).sort((a, b) => a - b));
  });

  it('links the benchmark figures and their history, moved to docs/benchmarks.md', () => {
    expect(readme).toContain('(docs/benchmarks.md)');
    const benchmarks = existsSync(path.join(ROOT, 'docs/benchmarks.md')) ? read('docs/benchmarks.md') : '';
    const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts);
    const benches = scripts.filter((name) => name.startsWith('bench:'));
    expect(benches.length).toBeGreaterThan(0);
    expect(benches.filter((name) => !benchmarks.includes(`npm run ${name}`))).toEqual([]);
  });

  it('every relative link in the README and docs/ reaches a file, and a heading there when it names one', () => {
    const broken = pages.flatMap((page) =>
      [...read(page).matchAll(/\]\(([^)\s]+)\)/g)]
        .map((m) => m[1]!)
        .filter((target) => !/^[a-z]+:/.test(target))
        .flatMap((target) => {
          const [file, hash] = target.split('#') as [string, string | undefined];
          const resolved = file === '' ? page : path.join(path.dirname(page), file);
          if (!existsSync(path.join(ROOT, resolved))) return [`${page}: ${target} (no file)`];
          if (hash === undefined || !resolved.endsWith('.md')) return [];
          const headings = [...read(resolved).matchAll(/^#+ (.+)$/gm)].map((m) => anchor(m[1]!));
          return headings.includes(hash) ? [] : [`${page}: ${target} (no heading)`];
        }),
    );
    expect(broken).toEqual([]);
  });
});
