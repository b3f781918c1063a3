/** Repeated timings of one side of a benchmark: the median and how far the runs spread around it. */
export interface RunStats {
  median: number;
  min: number;
  max: number;
  /** (max - min) / median, in percent. */
  spreadPercent: number;
}

/** An odd number of runs gives a median that is one of them. */
export function runStats(values: readonly number[]): RunStats {
  if (values.length === 0) throw new Error('runStats needs at least one run');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  const min = sorted[0]!;
  const max = sorted[sorted.length - 1]!;
  return { median, min, max, spreadPercent: ((max - min) / median) * 100 };
}

/** `3.21 s (3.10-3.40, spread 9%)` */
export function formatRunStats(stats: RunStats, unit = 's'): string {
  const f = (v: number) => v.toFixed(2);
  return `${f(stats.median)} ${unit} (${f(stats.min)}-${f(stats.max)}, spread ${stats.spreadPercent.toFixed(0)}%)`;
}
