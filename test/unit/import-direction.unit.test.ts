import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

/*
 * Imports point one way (ARCHITECTURE.md, "Layers"): entry points -> app ->
 * jobs -> domain -> streams -> exchange -> foundation. A module may import from its own
 * layer or any layer below it, never above. Type-only imports count too: a
 * type that names a higher layer ties the lower one to it all the same.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');

const LAYERS = ['foundation', 'exchange', 'streams', 'domain', 'jobs', 'app', 'entry'] as const;
type Layer = (typeof LAYERS)[number];

/** The layer of a file, by its folder; the first matching prefix wins. */
const FOLDERS: [string, Layer | 'simulator'][] = [
  ['src/cli/', 'entry'],
  ['src/http/', 'entry'],
  ['src/demo/', 'entry'],
  // Scripts run by npm: entry points of their own.
  ['src/db/tools/generate.ts', 'entry'],
  ['src/db/tools/create-migration.ts', 'entry'],
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

function relativeImports(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(IMPORT)].map((match) =>
    path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1]!)),
  );
}

const files = [...sourceFiles('src'), ...sourceFiles('jobs')].filter((f) => !f.startsWith('src/generated/'));

/*
 * Folders of one layer may import each other, but only one way: a cycle between two folders
 * (accounting borrowing export's vocabulary while export builds on accounting) makes neither
 * understandable, testable or movable on its own. A file's folder is its entry in FOLDERS (so an
 * npm script is a node of its own); the folders in SPLIT are taken one level deeper
 * (`src/accounting/lots`, `jobs/sync`), a file directly in them being the folder itself (the queue
 * map, the runtime: so the queue map may not import a processor's folder that imports it back).
 */
const SPLIT = ['src/accounting/', 'jobs/'];

function folderOf(file: string): string {
  const prefix = FOLDERS.find(([p]) => file.startsWith(p))![0];
  if (!SPLIT.includes(prefix)) return prefix.replace(/\/$/, '');
  const rest = file.slice(prefix.length).split('/');
  return rest.length > 1 ? `${prefix}${rest[0]}` : prefix.replace(/\/$/, '');
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
    expect(folderCycles()).toEqual([]);
  });

  /*
   * jobs/ is the queue adapter: an entry point calls the application services of src/app (which
   * build on jobs), never a queue, a processor or an enqueue helper directly. The one thing it
   * takes from jobs/ is the Runtime type, the process's resources it is handed.
   */
  it('entry points import nothing of jobs/ but the Runtime type', () => {
    const entries = files.filter((f) => ['src/cli/', 'src/http/', 'src/demo/'].some((p) => f.startsWith(p)));
    const reached = entries.flatMap((file) =>
      relativeImports(file)
        .filter((target) => target.startsWith('jobs/') && target !== 'jobs/runtime.ts')
        .map((target) => `${file} -> ${target}`),
    );
    expect(reached).toEqual([]);
  });
});
