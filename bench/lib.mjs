// Small helpers shared by the benchmarks: timing, medians, side-by-side runs, reporting, files.
import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** A SQLite database file and its WAL and shared-memory files, gone (a run starts on a fresh one). */
export function removeSqliteFiles(file) {
  for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The `p` quantile of `values` (the value below which that share of them falls); NaN for none. */
export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

/**
 * Runs each contender `rounds` times, interleaved (A B A B …) so that machine noise hits both
 * alike, after `warmup` untimed runs each. Returns milliseconds per run for each contender.
 */
export function sideBySide(contenders, { warmup = 3, rounds = 15 } = {}) {
  for (const fn of Object.values(contenders)) for (let i = 0; i < warmup; i++) fn();
  const times = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [name, fn] of Object.entries(contenders)) {
      const start = performance.now();
      fn();
      times[name].push(performance.now() - start);
    }
  }
  return Object.fromEntries(
    Object.entries(times).map(([k, v]) => [k, { median: median(v), min: Math.min(...v), max: Math.max(...v) }]),
  );
}

export function ms(n) {
  return `${n.toFixed(n < 10 ? 2 : 1)} ms`;
}

export function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r) => r.map((c, i) => String(c).padEnd(widths[i])).join('  ')).join('\n');
}
