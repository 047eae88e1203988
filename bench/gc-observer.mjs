// Preloaded into a server by bench/gc.mjs (`node --import`): sums the garbage collector's pauses
// by kind from Node's performance timeline. SIGUSR2 starts over; SIGUSR1 writes the sums as JSON
// to $SVC_BENCH_GC_FILE.
import { writeFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';

const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental marking',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};
let sums = {};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = KINDS[entry.detail?.kind] ?? 'other';
    const sum = (sums[kind] ??= { count: 0, ms: 0 });
    sum.count++;
    sum.ms += entry.duration;
  }
}).observe({ entryTypes: ['gc'] });
process.on('SIGUSR2', () => (sums = {}));
process.on('SIGUSR1', () => writeFileSync(process.env.SVC_BENCH_GC_FILE, JSON.stringify(sums)));
