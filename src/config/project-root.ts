import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The folder holding ledgerline's package.json (and prisma/), found by walking up from `from`:
 * the same answer whether the code runs from src/ through tsx or compiled from dist/src/, whose
 * files sit one folder deeper. Only ledgerline's own package.json counts.
 */
export function findProjectRoot(from: string): string {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'ledgerline') {
      return dir;
    }
    if (path.dirname(dir) === dir) throw new Error(`no ledgerline package.json above ${from}`);
  }
}

export const PROJECT_ROOT = findProjectRoot(import.meta.dirname);
