import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

/*
 * One Node version, stated once in package.json's `engines` and used everywhere else: `.nvmrc`
 * (developers), the Dockerfile (the image) and the README's prerequisites. npm warns EBADENGINE
 * when an installed package's `engines.node` does not admit the running Node, so the stated
 * minimum must satisfy every package in the lock file, as npm's own check does it (semver,
 * prereleases included).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string, options?: { includePrerelease?: boolean }): boolean;
};

interface LockFile {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
}

/** `engines.node` as `>=MAJOR.MINOR`: the one form this project states. */
function statedMinimum(): { major: number; minor: number; version: string } {
  const engines = (JSON.parse(read('package.json')) as { engines?: { node?: string } }).engines?.node ?? '';
  const match = /^>=(\d+)\.(\d+)$/.exec(engines);
  expect(match, `package.json engines.node is "${engines}", not ">=MAJOR.MINOR"`).not.toBeNull();
  const [major, minor] = [Number(match![1]), Number(match![2])];
  return { major, minor, version: `${major}.${minor}.0` };
}

describe('the Node version', () => {
  it('.nvmrc names the major version package.json engines states', () => {
    expect(read('.nvmrc').trim()).toBe(String(statedMinimum().major));
  });

  it('every Dockerfile stage builds on the official image of that major version', () => {
    const dockerfile = read('Dockerfile');
    const images = [...dockerfile.matchAll(/^ARG NODE_IMAGE=(\S+)$/gm)].map((m) => m[1]!);
    expect(images).toHaveLength(1);
    expect(images[0]).toMatch(new RegExp(`^node:${statedMinimum().major}(-[a-z0-9-]+)?$`));
    const froms = [...dockerfile.matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]!);
    expect(froms.length).toBeGreaterThan(0);
    for (const from of froms) expect(from).toBe('${NODE_IMAGE}');
  });

  it("the README's prerequisites state the same minimum", () => {
    const { major, minor } = statedMinimum();
    const readme = read('README.md');
    const prerequisites = /^## Prerequisites\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';
    expect(prerequisites, 'README.md has a "## Prerequisites" section').not.toBe('');
    const stated = [...prerequisites.matchAll(/Node\.js (\d+)(?:\.(\d+))?/g)].map((m) => `${m[1]}.${m[2] ?? 'x'}`);
    expect(stated).toEqual([`${major}.${minor}`]);
  });

  it('every locked package accepts that minimum, so npm install on it warns no EBADENGINE', () => {
    const { version } = statedMinimum();
    const lock = JSON.parse(read('package-lock.json')) as LockFile;
    const refusing = Object.entries(lock.packages).flatMap(([key, entry]) => {
      const wanted = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (wanted === undefined || semver.satisfies(version, wanted, { includePrerelease: true })) return [];
      return [`${key.replace(/^.*node_modules\//, '') || 'ledgerline'}@${entry.version ?? ''} wants node ${wanted}`];
    });
    expect(refusing).toEqual([]);
  });
});
