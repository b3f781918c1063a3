import { mkdir } from 'node:fs/promises';
import path from 'node:path';

import type { DemoExports, DemoRun, WrittenReport } from './demo-exports.ts';
import { deYearFigures, ukYearFigures } from './demo-tax-figures.ts';

/** The subfolder of EXPORT_DIR the "after" summaries go to: the "before" files stay as written. */
export const AFTER_DIR = 'after-accountant';

/**
 * The filing summaries again (realized-gains-summary under uk and de, over the same periods), now
 * with the accountant's supplied costs and proceeds, into EXPORT_DIR/after-accountant. The German
 * figures keep the income summary already written: supplied costs and proceeds price deposits and
 * P2P sells, never income (valued at market on receipt), so its file would be the same.
 */
export async function exportAfterAccountant(
  exportDir: string,
  exports: Pick<DemoExports, 'write'>,
  summaries: readonly DemoRun[],
  before: () => Promise<readonly WrittenReport[]>,
): Promise<WrittenReport[]> {
  const dir = path.join(exportDir, AFTER_DIR);
  await mkdir(dir, { recursive: true });
  // Each walk in a thread of its own where it can: the machine has two cores.
  const written = (await Promise.all(summaries.map((run) => exports.write([run], dir)))).flat();
  const income = (await before()).find((w) => w.report === 'income-summary' && w.method === 'de');
  for (const r of written) {
    if (r.method === 'uk') r.years = { uk: await ukYearFigures(r.csvPath) };
    else if (income !== undefined) r.years = { de: await deYearFigures(r.csvPath, income.csvPath) };
  }
  return written;
}
