import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

/*
 * Imports point one way (ARCHITECTURE.md, "Layers"): entry points -> jobs -> app ->
 * domain -> streams -> exchange -> foundation. A module may import from its own
 * layer or any layer below it, never above. Type-only imports count too: a
 * type that names a higher layer ties the lower one to it all the same. src/app owns the ports
 * its services enqueue through (src/app/job-port.ts); jobs/ implements them, so the queue
 * adapter depends on the application and never the reverse.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');

const LAYERS = ['foundation', 'exchange', 'streams', 'domain', 'app', 'jobs', 'entry'] as const;
type Layer = (typeof LAYERS)[number];

/** The layer of a file, by its folder; the first matching prefix wins. */
const FOLDERS: [string, Layer | 'simulator'][] = [
  ['src/cli/', 'entry'],
  ['src/http/', 'entry'],
  ['src/demo/', 'entry'],
  // Scripts run by npm: entry points of their own.
  ['src/db/tools/generate.ts', 'entry'],
  ['src/simulator/main.ts', 'entry'],
  ['src/app/', 'app'],
  ['jobs/', 'jobs'],
  ['src/ingest/', 'domain'],
  ['src/reconcile/', 'domain'],
  ['src/export/', 'domain'],
  ['src/management/', 'domain'],
  ['src/market-data/', 'domain'],
  ['src/accounting/', 'domain'],
  ['src/accounts/', 'domain'],
  ['src/booking/', 'domain'],
  // The history streams: each declares its records and reads them through the generic exchange client.
  ['src/streams/', 'streams'],
  ['src/exchange/', 'exchange'],
  ['src/config/', 'foundation'],
  ['src/db/', 'foundation'],
  ['src/errors/', 'foundation'],
  ['src/logging/', 'foundation'],
  ['src/metrics/', 'foundation'],
  ['src/crypto/', 'foundation'],
  ['src/vocabulary/', 'foundation'],
  ['src/generated/', 'foundation'],
  // The simulator stands apart: it imports nothing of ledgerline's, so each can check the other.
  ['src/simulator/', 'simulator'],
];

function layerOf(file: string): Layer | 'simulator' {
  const found = FOLDERS.find(([prefix]) => file.startsWith(prefix));
  if (!found) throw new Error(`${file}: no layer; add its folder to FOLDERS`);
  return found[1];
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(relative));
    else if (entry.name.endsWith('.ts')) out.push(relative);
  }
  return out;
}

const IMPORT = /^\s*(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'/gm;
/** A module loaded on demand (`await import('../http/start-web.ts')`) is imported all the same. */
const DYNAMIC_IMPORT = /\bimport\(\s*'(\.[^']+)'\s*\)/g;
/** A module imported for its side effects (`import '../../jobs/definitions.ts';`) is imported too. */
const SIDE_EFFECT_IMPORT = /^\s*import\s+'(\.[^']+)'/gm;

/** The relative imports of a module's text, as paths from the repository's root. */
function importsIn(text: string, file: string): string[] {
  return [...text.matchAll(IMPORT), ...text.matchAll(DYNAMIC_IMPORT), ...text.matchAll(SIDE_EFFECT_IMPORT)].map(
    (match) => path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1]!)),
  );
}

function relativeImports(file: string): string[] {
  return importsIn(readFileSync(path.join(ROOT, file), 'utf8'), file);
}

/** The one part of jobs/ that the rest of src/ may import (and only its entry points). */
const COMPOSITION_ROOT = 'jobs/composition/';

const files = [...sourceFiles('src'), ...sourceFiles('jobs')].filter((f) => !f.startsWith('src/generated/'));

/*
 * Folders may import each other, but only one way: a cycle between two folders (accounting
 * borrowing export's vocabulary while export builds on accounting, a database tool borrowing the
 * CLI's runner while the CLI builds on the database) makes neither understandable, testable or
 * movable on its own. A file's folder is its directory under src/ or jobs/ whatever its layer (an
 * npm script in src/db/tools is in src/db); the folders in SPLIT are taken one level deeper
 * (`src/accounting/lots`, `jobs/sync`), a file directly in them being the folder itself (the queue
 * map, the runtime: so the queue map may not import a processor's folder that imports it back).
 */
const SPLIT = ['src/accounting', 'jobs'];

function folderOf(file: string): string {
  const parts = file.split('/');
  const top = parts[0] === 'src' ? `src/${parts[1]}` : parts[0]!;
  const depth = top.split('/').length;
  if (!SPLIT.includes(top) || parts.length <= depth + 1) return top;
  return `${top}/${parts[depth]}`;
}

/** Every cycle of the folder graph, one per strongly connected component, as `a -> b -> a`. */
function folderCycles(): string[] {
  const edges = new Map<string, Set<string>>();
  for (const file of files) {
    const from = folderOf(file);
    for (const target of relativeImports(file)) {
      if (!target.startsWith('src/') && !target.startsWith('jobs/')) continue;
      const to = folderOf(target);
      if (to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  // A shortest path back to the start from each folder: any found is a cycle through it.
  const cycles = new Map<string, string>();
  for (const start of [...edges.keys()].sort()) {
    const previous = new Map<string, string>();
    const queue = [start];
    while (queue.length > 0) {
      const node = queue.shift()!;
      for (const next of [...(edges.get(node) ?? [])].sort()) {
        if (next === start) {
          const path = [start];
          for (let at = node; at !== start; at = previous.get(at)!) path.splice(1, 0, at);
          const key = [...path].sort().join(' ');
          if (!cycles.has(key)) cycles.set(key, [...path, start].join(' -> '));
          queue.length = 0;
          break;
        }
        if (!previous.has(next)) {
          previous.set(next, node);
          queue.push(next);
        }
      }
    }
  }
  return [...cycles.values()];
}

describe('import direction', () => {
  it('every source file has a layer', () => {
    expect(files.length).toBeGreaterThan(100);
    for (const file of files) expect(() => layerOf(file)).not.toThrow();
  });

  it('reads every form of import: static, re-export, dynamic and side-effect only', () => {
    const text = [
      "import { a } from '../x/a.ts';",
      "export { b } from './b.ts';",
      "const c = await import('../c.ts');",
      "import '../../../jobs/definitions.ts';",
    ].join('\n');
    expect(importsIn(text, 'src/accounting/gains/m.ts').sort()).toEqual(
      ['src/accounting/c.ts', 'src/accounting/gains/b.ts', 'src/accounting/x/a.ts', 'jobs/definitions.ts'].sort(),
    );
  });

  it('no module imports from a layer above its own', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      for (const target of relativeImports(file)) {
        if (!target.startsWith('src/') && !target.startsWith('jobs/')) continue;
        const to = layerOf(target);
        if (from === 'simulator' || to === 'simulator') {
          // Only entry points (the demo, the CLI) start a simulator; it imports nothing of ours.
          if (from !== to && !(from === 'entry' && to === 'simulator')) violations.push(`${file} -> ${target}`);
          continue;
        }
        if (LAYERS.indexOf(to) > LAYERS.indexOf(from)) violations.push(`${file} (${from}) -> ${target} (${to})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('no import cycle between folders', () => {
    expect(folderCycles(), 'folders that import each other (a -> b -> a)').toEqual([]);
  });

  /*
   * The application services own the port they enqueue through; jobs/ implements it. An import
   * of jobs/ from src/app (a queue, a payload, the Runtime type) ties the services to BullMQ again.
   */
  it('src/app imports nothing of jobs/', () => {
    const reached = files
      .filter((file) => file.startsWith('src/app/'))
      .flatMap((file) =>
        relativeImports(file)
          .filter((target) => target.startsWith('jobs/'))
          .map((target) => `${file} -> ${target}`),
      );
    expect(reached, 'src/app imports jobs/: enqueue through the port of src/app/job-port.ts').toEqual([]);
  });

  /*
   * Of jobs/, the rest of src/ sees only the composition root, jobs/composition/: it builds the
   * runtime, its queues, the port's implementation and the workers. An entry point (the CLI, the
   * web page, the demo) takes them from there and calls the services of src/app, never a queue, a
   * processor or an enqueue helper directly; nothing else in src/ imports jobs/ at all.
   */
  it('src/ imports nothing of jobs/ but the composition root, and only from an entry point', () => {
    const reached = files
      .filter((file) => file.startsWith('src/'))
      .flatMap((file) =>
        relativeImports(file)
          .filter((target) => target.startsWith('jobs/'))
          .filter((target) => !(target.startsWith(COMPOSITION_ROOT) && layerOf(file) === 'entry'))
          .map((target) => `${file} -> ${target}`),
      );
    expect(reached).toEqual([]);
  });
});
