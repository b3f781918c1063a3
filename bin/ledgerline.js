#!/usr/bin/env node
// Where the TypeScript sources are present (a clone), runs them through tsx: no build step, and never
// a stale build. Where only the compiled JavaScript is (the Docker image ships dist/ without src/;
// `npm run compile` makes it), runs that: it starts faster and needs no compiler at run time.
import { existsSync } from 'node:fs';
import { URL } from 'node:url';

if (existsSync(new URL('../src/cli/main.ts', import.meta.url))) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
} else {
  await import('../dist/src/cli/main.js');
}
