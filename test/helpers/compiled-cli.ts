import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BUILDS = path.join(ROOT, 'tmp', 'test-cli');
const STALE_MS = 60 * 60 * 1000;

/**
 * The CLI the integration tests start as a child process, compiled once per change of the sources.
 * Through tsx every child spent 2-4 s transpiling the whole program before its first line (the suite
 * starts a few hundred); the compiled JavaScript starts in about a second, and it is what the Docker
 * image runs, so the children test the shipped form. Builds are keyed by a stamp of the sources
 * (path, size, mtime), so an edit is never tested against a stale build, and written under a
 * temporary name then renamed, so two test runs in one checkout never read a half-written build.
 */
export function compiledCliEntry(): string {
  const stamp = sourceStamp();
  const build = path.join(BUILDS, stamp);
  const entry = path.join(build, 'src', 'cli', 'main.js');
  if (existsSync(path.join(build, 'complete'))) return entry;
  const partial = `${build}.partial-${process.pid}`;
  const compile = spawnSync(
    process.execPath,
    [path.join(ROOT, 'scripts', 'compile.js'), '--no-check', '--out-dir', path.relative(ROOT, partial)],
    { cwd: ROOT, encoding: 'utf8' },
  );
  if (compile.status !== 0)
    throw new Error(`compiling the CLI for the tests failed:\n${compile.stdout}${compile.stderr}`);
  writeFileSync(path.join(partial, 'complete'), stamp);
  try {
    renameSync(partial, build);
  } catch {
    // Another run finished the same build first: its copy is identical.
    rmSync(partial, { recursive: true, force: true });
  }
  removeStaleBuilds(stamp);
  return entry;
}

function sourceStamp(): string {
  const hash = createHash('sha256');
  for (const top of ['src', 'jobs', 'tsconfig.json', 'tsconfig.build.json', 'package.json']) {
    const full = path.join(ROOT, top);
    const files = statSync(full).isDirectory()
      ? readdirSync(full, { recursive: true, withFileTypes: true })
          .filter((entry) => entry.isFile())
          .map((entry) => path.join(entry.parentPath, entry.name))
      : [full];
    for (const file of files.sort()) {
      const { size, mtimeMs } = statSync(file);
      hash.update(`${path.relative(ROOT, file)}\0${size}\0${mtimeMs}\n`);
    }
  }
  return hash.digest('hex').slice(0, 16);
}

function removeStaleBuilds(current: string): void {
  for (const name of readdirSync(BUILDS)) {
    if (name === current) continue;
    const full = path.join(BUILDS, name);
    if (Date.now() - statSync(full).mtimeMs > STALE_MS) rmSync(full, { recursive: true, force: true });
  }
}
