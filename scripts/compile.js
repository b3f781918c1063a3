#!/usr/bin/env node
// `npm run compile [-- --out-dir <dir>] [-- --no-check]`: emits the JavaScript that images run.
// tsc (tsconfig.build.json) turns src/ and jobs/ into <out-dir>/src and <out-dir>/jobs with
// `.ts` imports rewritten to `.js`; files the code reads beside itself at run time (Lua scripts)
// are copied next to their modules, which tsc does not do. --no-check skips type-checking
// (`npm run build` does that): the build test uses it so a half-edited file elsewhere does not
// stop it, and it halves the time.
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';

/* global console */

const root = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const outIndex = args.indexOf('--out-dir');
const outDir = path.resolve(root, outIndex >= 0 ? args[outIndex + 1] : 'dist');
if (!outDir.startsWith(root + path.sep)) {
  // Compiled modules find package.json, prisma/ and node_modules by walking up: they must sit inside the tree.
  console.error(`compile: --out-dir must be inside ${root}`);
  process.exit(2);
}
const ASSET_EXTENSIONS = ['.lua'];

rmSync(outDir, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const tscArgs = [tsc, '-p', path.join(root, 'tsconfig.build.json'), '--outDir', outDir];
if (args.includes('--no-check')) tscArgs.push('--noCheck');
const result = spawnSync(process.execPath, tscArgs, { stdio: 'inherit', cwd: root });
if (result.status !== 0) process.exit(result.status ?? 1);

let copied = 0;
for (const top of ['src', 'jobs']) {
  for (const entry of readdirSync(path.join(root, top), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !ASSET_EXTENSIONS.includes(path.extname(entry.name))) continue;
    const from = path.join(entry.parentPath, entry.name);
    cpSync(from, path.join(outDir, path.relative(root, from)));
    copied += 1;
  }
}
console.log(`compiled into ${path.relative(root, outDir)} (${copied} asset file(s) copied)`);
