import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

const dir = path.dirname(new URL(import.meta.url).pathname);
const ALLOWED = /^(node:|pg$|decimal\.js$|luxon$|csv-parse\/sync$|vitest$|\.\/[a-z-]+\.ts$)/;

describe('the independent tax calculation (npm run independent:tax)', () => {
  it('imports nothing of src/: only node, pg, decimal.js, luxon, csv-parse and its own files', () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const text = readFileSync(path.join(dir, file), 'utf8');
      const specifiers = [
        ...text.matchAll(/^(?:import|export)\b[^;'"]*\bfrom\s+['"]([^'"]+)['"]|^import\s+['"]([^'"]+)['"]/gm),
      ].map((m) => m[1] ?? m[2]!);
      for (const s of specifiers) expect(s, `${file} imports ${s}`).toMatch(ALLOWED);
      expect(text, file).not.toMatch(/\bimport\(/);
    }
  });
});
