/**
 * The pipeline's stages import only earlier stages (docs/architecture.md):
 *
 *   load → raml → ir → check, acl → outdir → plan → apidiff → render → format → write
 *
 * - A module may import its own stage and earlier ones, never a later one: a stage hands its
 *   result on and does not know who reads it.
 * - Shared leaves (diagnostics/, util/, version.ts, output.ts) may be imported by any stage and
 *   import only each other.
 * - The orchestrators (cli/, pipeline.ts, generate.ts) may import anything; no stage imports them.
 * - `check` and `acl` are both queries over the finished IR, at the same rank: neither imports the other.
 * - Reading the out-dir (outdir/) comes before planning; write/ only writes what was decided.
 * - svcgen's code takes from the runtime (runtime/) only its vocabulary: the modules that import
 *   nothing but each other (field types and storage kinds, the query operators, MongoDB steps,
 *   PostgreSQL's fold of words for search, what a date, a time or base64 text is, the closest
 *   name to a typo).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, sourceFiles } from '../support/imports.js';
import { repoRoot } from '../support/paths.js';

const STAGES = ['load', 'raml', 'ir', 'check|acl', 'outdir', 'plan', 'apidiff', 'render', 'format', 'write'] as const;
/** The runtime's modules svcgen may import: they import nothing outside this list. */
const RUNTIME_VOCABULARY = [
  'runtime/src/lib/model.ts',
  'runtime/src/lib/text.ts',
  'runtime/src/lib/query-operators.ts',
  'runtime/src/lib/mongo/steps.ts',
  'runtime/src/lib/openapi-components.ts',
  'runtime/src/lib/sql/search-fold.ts',
  // A literal default is checked as the service checks what a client sends (ir/build/default-values.ts).
  'runtime/src/lib/values.ts',
  'runtime/src/lib/http/patterns.ts',
  // "Did you mean …?": the diagnostics' suggestions and the service's query errors alike.
  'runtime/src/lib/suggest.ts',
];
const LEAVES = ['diagnostics', 'util', 'version.ts', 'output.ts'];
const ORCHESTRATORS = ['cli', 'pipeline.ts', 'generate.ts'];

type Layer =
  | { readonly kind: 'stage'; readonly rank: number; readonly name: string }
  | { readonly kind: 'leaf'; readonly name: string }
  | { readonly kind: 'orchestrator'; readonly name: string }
  | { readonly kind: 'runtime'; readonly name: string };

/** The layer of a file (a path from the repository's root) by its first segment below src/, or the runtime's. */
function layerOf(path: string): Layer | undefined {
  if (path.startsWith('runtime/')) return { kind: 'runtime', name: path };
  const top = path.replace(/^src\//, '').split('/')[0]!;
  if (LEAVES.includes(top)) return { kind: 'leaf', name: top };
  if (ORCHESTRATORS.includes(top)) return { kind: 'orchestrator', name: top };
  const rank = STAGES.findIndex((s) => s.split('|').includes(top));
  return rank === -1 ? undefined : { kind: 'stage', rank, name: top };
}

/** Why `from` may not import `to`, or undefined when it may. */
function violation(from: Layer, to: Layer): string | undefined {
  if (to.kind === 'runtime')
    return RUNTIME_VOCABULARY.includes(to.name) ? undefined : `${to.name} is the runtime's, not its vocabulary`;
  if (from.kind === 'orchestrator') return undefined;
  if (to.kind === 'orchestrator') return `${to.name} is an orchestrator: no stage or leaf imports it`;
  if (from.kind === 'leaf')
    return to.kind === 'leaf' ? undefined : `the shared leaf ${from.name} imports the stage ${to.name}`;
  if (to.kind === 'leaf') return undefined;
  if (from.kind !== 'stage' || to.kind !== 'stage') return undefined;
  if (to.rank > from.rank) return `${from.name} imports the later stage ${to.name}`;
  if (to.rank === from.rank && to.name !== from.name) return `${from.name} and ${to.name} are at the same rank`;
  return undefined;
}

describe('stage boundaries', () => {
  const graph = importGraph(repoRoot, sourceFiles(repoRoot, 'src'));

  it('knows the layer of every file in src/', () => {
    expect([...graph.keys()].filter((f) => layerOf(f) === undefined)).toEqual([]);
  });

  it('has no import from a stage to a later one, nor into an orchestrator, nor into the runtime but its vocabulary', () => {
    const found = [...graph].flatMap(([file, targets]) =>
      targets.flatMap((target) => {
        const why = violation(layerOf(file)!, layerOf(target)!);
        return why ? [`${file} → ${target}: ${why}`] : [];
      }),
    );
    expect(found).toEqual([]);
  });

  it('takes a runtime vocabulary that imports nothing but itself', () => {
    const vocabulary = importGraph(repoRoot, RUNTIME_VOCABULARY);
    const outside = [...vocabulary].flatMap(([file, targets]) =>
      targets.filter((t) => !RUNTIME_VOCABULARY.includes(t)).map((t) => `${file} → ${t}`),
    );
    expect(outside).toEqual([]);
    for (const file of RUNTIME_VOCABULARY) expect(readFileSync(join(repoRoot, file), 'utf8')).not.toMatch(/from '[^.]/);
  });

  it.each([
    ['src/load/fast-yaml.ts', 'src/raml/model.ts', 'load imports the later stage raml'],
    ['src/plan/plan.ts', 'src/render/header.ts', 'plan imports the later stage render'],
    ['src/outdir/history.ts', 'src/plan/migrations/plan.ts', 'outdir imports the later stage plan'],
    ['src/write/changes.ts', 'src/generate.ts', 'generate.ts is an orchestrator: no stage or leaf imports it'],
    ['src/diagnostics/format.ts', 'src/load/ynode.ts', 'the shared leaf diagnostics imports the stage load'],
    ['src/check/checks.ts', 'src/acl/matrix.ts', 'check and acl are at the same rank'],
    [
      'src/plan/models/model-file.ts',
      'runtime/src/lib/http/app.ts',
      "runtime/src/lib/http/app.ts is the runtime's, not its vocabulary",
    ],
  ])('refuses %s → %s', (from, to, why) => {
    expect(violation(layerOf(from)!, layerOf(to)!)).toBe(why);
  });

  it.each([
    ['src/plan/auth/views.ts', 'src/ir/types.ts'],
    ['src/write/changes.ts', 'src/outdir/on-disk.ts'],
    ['src/plan/plan.ts', 'src/outdir/history.ts'],
    ['src/raml/expand.ts', 'src/load/ynode.ts'],
    ['src/pipeline.ts', 'src/write/write.ts'],
    ['src/ir/types.ts', 'runtime/src/lib/model.ts'],
  ])('allows %s → %s', (from, to) => {
    expect(violation(layerOf(from)!, layerOf(to)!)).toBeUndefined();
  });
});
