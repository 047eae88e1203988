import type { ServiceIR } from './types.js';

/** `svcgen inspect --ir`: the IR as JSON with sorted keys, so it diffs well and never changes by itself. */
export function printIr(ir: ServiceIR): string {
  return `${JSON.stringify(sortKeys(ir), null, 2)}\n`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}
