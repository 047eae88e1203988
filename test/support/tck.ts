/**
 * The comparison rule of scripts/tck-check.mjs (the RAML TCK checker), in process: drop `__METADATA__` and
 * `sourceMap`; a case expecting a hard error passes when the first hard error is on the same line;
 * any other case passes when there is no hard error and the specifications are deep-equal.
 */
import { isDeepStrictEqual } from 'node:util';

export interface TckLike {
  specification: unknown;
  errors?: { isWarning?: boolean; range?: { start?: { line?: number } } }[];
}

export function stripMetadata(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripMetadata);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      if (key !== '__METADATA__' && key !== 'sourceMap')
        out[key] = stripMetadata((value as Record<string, unknown>)[key]);
    }
    return out;
  }
  return value;
}

function hardErrorLines(doc: TckLike): number[] {
  return (doc.errors ?? [])
    .filter((e) => !e.isWarning)
    .map((e) => e.range?.start?.line ?? -1)
    .sort((a, b) => a - b);
}

export function tckVerdict(expected: TckLike, actual: TckLike): { pass: boolean; why: string } {
  const want = hardErrorLines(expected);
  const got = hardErrorLines(actual);
  if (want.length) {
    if (!got.length) return { pass: false, why: 'no error reported' };
    return { pass: got[0] === want[0], why: `first error on line ${got[0]}, expected ${want[0]}` };
  }
  if (got.length) return { pass: false, why: `unexpected error on line ${got[0]}` };
  const same = isDeepStrictEqual(stripMetadata(expected.specification), stripMetadata(actual.specification));
  return { pass: same, why: same ? '' : 'specification differs' };
}
