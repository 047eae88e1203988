/**
 * The tools users point at a service's `/openapi.json`, run on generated documents: redocly's
 * `recommended` rules (its CLI, as users run it) and spectral's `spectral:oas` (its engine and
 * ruleset, the same ones its CLI runs). Their findings are plain data, for the tests to count.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Document, Spectral } from '@stoplight/spectral-core';
import { Json as JsonParser } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { execa } from 'execa';
import { withoutAuth } from '../../runtime/src/lib/http/openapi.js';
import { analyze } from '../../src/pipeline.js';
import { openApiDocument } from '../../src/plan/openapi/document.js';
import { repoRoot } from './paths.js';

export type Json = Record<string, unknown>;

/** Every fixture that describes an API. */
export const API_FIXTURES = [
  'blog',
  'ramses-example',
  'ramses-starter',
  'events',
  'filters',
  'embedding',
  'search',
  'library',
];

/** `blog` (auth on) and `blog.no-auth`: the documents a service of each fixture can serve. */
export function servedDocuments(): Map<string, Json> {
  const documents = new Map<string, Json>();
  for (const fixture of API_FIXTURES) {
    const analysis = analyze(join(repoRoot, 'fixtures', fixture, 'api.raml'), { cwd: repoRoot });
    if (!analysis.ir) throw new Error(`${fixture} has errors`);
    const document = openApiDocument(analysis.ir);
    documents.set(fixture, document);
    if (analysis.ir.auth) documents.set(`${fixture}.no-auth`, withoutAuth(document));
  }
  return documents;
}

export interface Finding {
  readonly tool: 'redocly' | 'spectral';
  readonly rule: string;
  readonly severity: 'error' | 'warning' | 'info' | 'hint';
  readonly message: string;
  /** Where in the document: a JSON pointer (redocly) or a path joined with `/` (spectral). */
  readonly at: string;
}

/** The documents to lint, by name (a file name: letters, digits, `.`, `-`). */
export type Documents = ReadonlyMap<string, unknown>;

/**
 * `redocly lint --extends=recommended` on every document, in one run of its CLI (it starts in
 * about two seconds): the findings of each document by name.
 */
export async function redoclyLint(documents: Documents): Promise<Map<string, Finding[]>> {
  const dir = mkdtempSync(join(tmpdir(), 'svcgen-redocly-'));
  const files = [...documents].map(([name, document]) => {
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(document, null, 2));
    return file;
  });
  const { stdout } = await execa(
    join(repoRoot, 'node_modules/.bin/redocly'),
    ['lint', '--extends=recommended', '--format=json', '--max-problems=10000', ...files],
    {
      cwd: dir,
      reject: false,
      // No usage reports, no update check: the tests reach no network.
      env: { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    },
  );
  const found = new Map([...documents.keys()].map((name): [string, Finding[]] => [name, []]));
  for (const report of jsonObjects(stdout)) {
    for (const problem of report['problems'] as RedoclyProblem[]) {
      const location = problem.location[0]!;
      const name = nameOfFile(resolve(dir, location.source.ref));
      found.get(name)?.push({
        tool: 'redocly',
        rule: problem.ruleId,
        severity: problem.severity === 'error' ? 'error' : 'warning',
        message: problem.message,
        at: location.pointer ?? '',
      });
    }
  }
  return found;
}

interface RedoclyProblem {
  readonly ruleId: string;
  readonly severity: string;
  readonly message: string;
  readonly location: readonly { readonly source: { readonly ref: string }; readonly pointer?: string }[];
}

function nameOfFile(file: string): string {
  return file.slice(file.lastIndexOf('/') + 1).replace(/\.json$/, '');
}

/** redocly's JSON format prints one object per file, each right after the last (`}{`). */
function jsonObjects(text: string): Record<string, unknown>[] {
  return text
    .split(/(?<=^\})(?=\{$)/m)
    .filter((part) => part.trim())
    .map((part) => JSON.parse(part) as Record<string, unknown>);
}

const SEVERITIES = ['error', 'warning', 'info', 'hint'] as const;

/** spectral's `spectral:oas` (the rules it recommends) on one document. */
export async function spectralLint(document: unknown): Promise<Finding[]> {
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [[oas as never, 'recommended']] });
  const results = await spectral.run(new Document(JSON.stringify(document, null, 2), JsonParser));
  return results.map((r) => ({
    tool: 'spectral',
    rule: String(r.code),
    severity: SEVERITIES[r.severity] ?? 'hint',
    message: r.message,
    at: r.path.join('/'),
  }));
}

/** `{ "rule": count }` of some findings, for messages that say what is left at a glance. */
export function countByRule(findings: readonly Finding[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const f of findings) counts[`${f.severity} ${f.rule}`] = (counts[`${f.severity} ${f.rule}`] ?? 0) + 1;
  return counts;
}
