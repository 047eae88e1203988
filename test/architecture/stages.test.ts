/**
 * The pipeline's stages import only earlier stages (docs/architecture.md):
 *
 *   load → raml → ir → check, acl → plan → render → format → write
 *
 * - A module may import its own stage and earlier ones, never a later one: a stage hands its
 *   result on and does not know who reads it.
 * - Shared leaves (diagnostics/, util/, version.ts, output.ts) may be imported by any stage and
 *   import only each other.
 * - The orchestrators (cli/, pipeline.ts, generate.ts) may import anything; no stage imports them.
 * - `check` and `acl` are both queries over the finished IR, at the same rank: neither imports the other.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/paths.js';

const STAGES = ['load', 'raml', 'ir', 'check|acl', 'plan', 'render', 'format', 'write'] as const;
const LEAVES = ['diagnostics', 'util', 'version.ts', 'output.ts'];
const ORCHESTRATORS = ['cli', 'pipeline.ts', 'generate.ts'];

type Layer =
  | { readonly kind: 'stage'; readonly rank: number; readonly name: string }
  | { readonly kind: 'leaf'; readonly name: string }
  | { readonly kind: 'orchestrator'; readonly name: string };

const srcRoot = join(repoRoot, 'src');

/** The layer of a file by its first path segment below src/. */
function layerOf(pathInSrc: string): Layer | undefined {
  const top = pathInSrc.split('/')[0]!;
  if (LEAVES.includes(top)) return { kind: 'leaf', name: top };
  if (ORCHESTRATORS.includes(top)) return { kind: 'orchestrator', name: top };
  const rank = STAGES.findIndex((s) => s.split('|').includes(top));
  return rank === -1 ? undefined : { kind: 'stage', rank, name: top };
}

/** Why `from` may not import `to`, or undefined when it may. */
function violation(from: Layer, to: Layer): string | undefined {
  if (from.kind === 'orchestrator') return undefined;
  if (to.kind === 'orchestrator') return `${to.name} is an orchestrator: no stage or leaf imports it`;
  if (from.kind === 'leaf')
    return to.kind === 'leaf' ? undefined : `the shared leaf ${from.name} imports the stage ${to.name}`;
  if (to.kind === 'leaf') return undefined;
  if (to.rank > from.rank) return `${from.name} imports the later stage ${to.name}`;
  if (to.rank === from.rank && to.name !== from.name) return `${from.name} and ${to.name} are at the same rank`;
  return undefined;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Relative imports, static and dynamic, type-only ones too: a type is a dependency all the same. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)'(\.[^']+)'/gm)].map((m) => m[1]!);
  return specifiers.map((s) =>
    relative(srcRoot, resolve(dirname(file), s))
      .split(sep)
      .join('/')
      .replace(/\.js$/, '.ts'),
  );
}

describe('stage boundaries', () => {
  const files = sourceFiles(srcRoot).map((f) => relative(srcRoot, f).split(sep).join('/'));

  it('knows the layer of every file in src/', () => {
    expect(files.filter((f) => layerOf(f) === undefined)).toEqual([]);
  });

  it('has no import from a stage to a later one, nor into an orchestrator', () => {
    const found = files.flatMap((file) =>
      importsOf(join(srcRoot, file)).flatMap((target) => {
        const why = violation(layerOf(file)!, layerOf(target)!);
        return why ? [`${file} → ${target}: ${why}`] : [];
      }),
    );
    expect(found).toEqual([]);
  });

  it.each([
    ['load/fast-yaml.ts', 'raml/model.ts', 'load imports the later stage raml'],
    ['plan/project.ts', 'render/header.ts', 'plan imports the later stage render'],
    ['write/changes.ts', 'generate.ts', 'generate.ts is an orchestrator: no stage or leaf imports it'],
    ['diagnostics/format.ts', 'load/ynode.ts', 'the shared leaf diagnostics imports the stage load'],
    ['check/checks.ts', 'acl/matrix.ts', 'check and acl are at the same rank'],
  ])('refuses %s → %s', (from, to, why) => {
    expect(violation(layerOf(from)!, layerOf(to)!)).toBe(why);
  });

  it.each([
    ['plan/auth-file.ts', 'ir/types.ts'],
    ['write/previous.ts', 'output.ts'],
    ['raml/expand.ts', 'load/ynode.ts'],
    ['pipeline.ts', 'write/write.ts'],
    ['ir/build/index.ts', 'ir/sources.ts'],
  ])('allows %s → %s', (from, to) => {
    expect(violation(layerOf(from)!, layerOf(to)!)).toBeUndefined();
  });
});
