/**
 * Differential tests against raml-1-parser (the parser the TCK encodes) on RAML written for what
 * the TCK does not cover: nested includes relative to the
 * including file, !singularize/!pluralize, <<methodName>>, optional properties below method level
 * and through type chains, merge precedence, multi-typed parameters, {*} headers, base URI
 * parameter overrides, securedBy inheritance, and the default media type inside templates.
 * And on invalid inputs: both must reject them.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/pipeline.js';
import { readRaml } from '../../src/raml/front-end.js';
import { toTckDocument } from '../../src/raml/tck/serialize.js';
import { oracleTck } from '../support/oracle.js';
import { repoRoot } from '../support/paths.js';
import { writeTree } from '../support/files.js';
import { stripMetadata, tckVerdict } from '../support/tck.js';
import { differentialCases } from './differential/cases.js';
import { DIFFERENT_BY_DESIGN } from './differential/known-differences.js';

/**
 * Where svcgen deliberately prints something else than raml-1-parser (JSON path → why). These
 * are r1 artefacts in the echo of declarations and of substituted keys, not meaning.
 */
const KNOWN_DIFFERENCES: Record<string, Record<string, string>> = {
  templates: {
    '/resources/0/resources/0/methods/0/responses/200/code':
      'r1 prints a response code that came from a <<parameter>> as a number',
  },
};

function differences(a: unknown, b: unknown, path = '', out: string[] = []): string[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return out;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys)
      differences((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}/${key}`, out);
    return out;
  }
  out.push(path);
  return out;
}

function svcgenTck(file: string) {
  const result = readRaml(file, { cwd: dirname(file) });
  return JSON.parse(JSON.stringify(toTckDocument(result.api, result.diagnostics, dirname(file)))) as {
    specification: unknown;
    errors: { isWarning?: boolean; code: string; range: { start: { line: number } } }[];
  };
}

const validDir = join(repoRoot, 'fixtures/raml08');
const invalidDir = join(repoRoot, 'fixtures/invalid');

describe('same expansion as raml-1-parser', () => {
  it.each(readdirSync(validDir).sort())('%s', (name) => {
    const file = join(validDir, name, 'api.raml');
    const theirs = oracleTck(file);
    const ours = svcgenTck(file);
    expect(theirs.errors.filter((e) => !e.isWarning)).toEqual([]);
    expect(ours.errors.filter((e) => !e.isWarning)).toEqual([]);
    const known = KNOWN_DIFFERENCES[name] ?? {};
    const found = differences(stripMetadata(theirs.specification), stripMetadata(ours.specification));
    expect(found.filter((path) => !(path in known))).toEqual([]);
    // An allow-list entry that no longer differs is stale.
    expect(Object.keys(known).filter((path) => !found.includes(path))).toEqual([]);
  });
});

/** Invalid fixtures where raml-1-parser is more lenient than svcgen, with the reason. */
const STRICTER_THAN_R1: Record<string, string> = {
  'SVC1006-merge-key': 'r1 expands YAML 1.1 merge keys; RAML 0.8 is YAML 1.2, which has none',
  'SVC1007-unknown-tag': 'r1 reports the unknown tag only as a warning here',
  'SVC1008-alias-bomb': 'r1 expands the aliases (slowly); svcgen refuses past 1,000,000 nodes',
  'SVC1009-nesting-too-deep': 'r1 accepts any nesting depth',
  'SVC1011-include-outside-folder': 'r1 reads any file; svcgen confines includes to the API folder',
  'SVC1012-include-cycle': 'r1 only warns about recursive includes',
  'SVC1013-remote-include': 'r1 would fetch it over the network',
  'SVC1002-file-too-large': 'r1 has no size limit',
  'SVC1003-binary-include': 'r1 inserts the bytes as text',
  'SVC1015-include-directory': 'r1 reports nothing for a directory',
  'SVC1101-not-raml-08': 'r1 also reads RAML 1.0; svcgen reads RAML 0.8 only',
  'SVC1101-header-spacing':
    'r1 reads a comment after the header; RAML 0.8 §Markup Language: "#%RAML followed by a single space followed by the text 0.8 and nothing else before the end of the line"',
  'SVC1111-duplicate-resource-slash':
    'r1 keeps /items, /items/ and /Items apart; to the service they are one resource (one model, one route file), which took the methods of one alone or did not compile',
  'SVC1103-wrong-kind-empty-item-in-is':
    'r1 skips an empty item of "is" beside others; RAML 0.8 §Applying Resource Types and Traits: "The value of the is attribute MUST be an array of any number of elements, each of which MUST be a) one or more trait keys (names) included in the traits declaration, or b) one or more trait definition maps"',
  'SVC1102-unknown-property-optional-on-resource':
    'r1 reads `get?:` on a resource as `get:`; RAML 0.8 §Optional Properties gives the "?" suffix to templates only: "a resource type or trait definition MAY append a question mark ("?") suffix to the name of any non-scalar property"',
};

describe('invalid RAML is rejected like raml-1-parser does', () => {
  const ramlLevel = readdirSync(invalidDir)
    .filter((name) => /^SVC1[1-3]/.test(name) || /^SVC10(0[1-9]|1[0-6])/.test(name))
    .filter((name) => !(name in STRICTER_THAN_R1))
    .filter((name) => name !== 'SVC1001-missing-root');
  it.each(ramlLevel)('%s', (name) => {
    const file = join(invalidDir, name, 'api.raml');
    const ours = analyze(file, { cwd: dirname(file) }).diagnostics;
    const code = name.split('-')[0]!;
    const oursForCode = ours.filter((d) => d.code === code);
    expect(oursForCode.length).toBeGreaterThan(0);
    const theirs = oracleTck(file).errors;
    // Same verdict: an error in both, or a warning in both.
    const weWarnOnly = oursForCode.every((d) => d.severity === 'warning');
    if (weWarnOnly) expect(theirs.filter((e) => !e.isWarning)).toEqual([]);
    else expect(theirs.filter((e) => !e.isWarning).length).toBeGreaterThan(0);
  });
});

/**
 * Several hundred small documents of our own (test/raml/differential/), each judged by the TCK
 * rule against raml-1-parser: when r1 reports an error, svcgen reports one on the same first
 * line; otherwise neither does and the printed specifications are equal. The cases where svcgen
 * deliberately answers otherwise are listed, with the reason, in known-differences.ts.
 */
describe('small documents judged by the TCK rule against raml-1-parser', () => {
  const verdicts = new Map<string, boolean>();
  afterAll(() => {
    const agreeing = [...verdicts.values()].filter(Boolean).length;
    console.log(
      `differential: svcgen agrees with raml-1-parser on ${agreeing} of ${verdicts.size} small documents by the TCK rule (${((100 * agreeing) / verdicts.size).toFixed(1)} %); ${Object.keys(DIFFERENT_BY_DESIGN).length} differ by design (known-differences.ts)`,
    );
  });

  it('has at least 300 cases with distinct names', () => {
    expect(differentialCases.length).toBeGreaterThanOrEqual(300);
    expect(new Set(differentialCases.map((c) => c.name)).size).toBe(differentialCases.length);
  });

  it('lists no known difference for a case that does not exist', () => {
    const names = new Set(differentialCases.map((c) => c.name));
    expect(Object.keys(DIFFERENT_BY_DESIGN).filter((name) => !names.has(name))).toEqual([]);
  });

  it.each(differentialCases.map((c) => [c.name, c] as const))('%s', (name, c) => {
    const dir = writeTree({ 'api.raml': `#%RAML 0.8\n${c.raml}`, ...c.files });
    const file = join(dir, 'api.raml');
    const theirs = oracleTck(file);
    const ours = svcgenTck(file);
    const verdict = tckVerdict(theirs, ours);
    verdicts.set(name, verdict.pass);
    const why = `${verdict.why}\n  raml-1-parser: ${firstError(theirs.errors)}\n  svcgen: ${firstError(ours.errors)}${specificationDifferences(theirs, ours)}`;
    if (name in DIFFERENT_BY_DESIGN) {
      // An entry for a case that now agrees is stale: remove it.
      expect(verdict.pass, 'this case now agrees with raml-1-parser: remove it from known-differences.ts').toBe(false);
    } else {
      expect(verdict.pass, why).toBe(true);
    }
  });
});

type ErrorLike = {
  isWarning?: boolean;
  code: string;
  message?: string;
  range: { start: { line: number; column?: number } };
};

function firstError(errors: readonly ErrorLike[]): string {
  const hard = errors.filter((e) => !e.isWarning).sort((a, b) => a.range.start.line - b.range.start.line)[0];
  return hard
    ? `${hard.range.start.line + 1}:${(hard.range.start.column ?? 0) + 1} ${hard.code} ${hard.message ?? ''}`
    : 'no error';
}

function specificationDifferences(theirs: { specification: unknown }, ours: { specification: unknown }): string {
  const paths = differences(stripMetadata(theirs.specification), stripMetadata(ours.specification));
  return paths.length ? `\n  specification differs at ${paths.slice(0, 5).join(', ')}` : '';
}
