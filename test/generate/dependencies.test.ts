/**
 * Every package a generated project imports is in its package.json: `dependencies` for src/,
 * `dependencies` or `devDependencies` for tests. (The end-to-end tests link one shared install
 * with every optional dependency, scripts/project-deps.mjs, so they would not notice.)
 */
import { builtinModules } from 'node:module';
import { describe, expect, it } from 'vitest';
import { generateFixture, SNAPSHOT_FIXTURES } from '../support/generated.js';

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`; relative and node: imports → null. */
function packageOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier)) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

function importsOf(source: string): string[] {
  return [...source.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'([^']+)'/g)].map((m) => m[1]!);
}

describe.each(SNAPSHOT_FIXTURES)('the generated %s project', (fixture) => {
  it('declares every package it imports', async () => {
    const tree = await generateFixture(fixture);
    const pkg = JSON.parse(tree.get('package.json')!.content) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const missing: string[] = [];
    for (const file of tree.values()) {
      if (!/\.(ts|mts|js|mjs)$/.test(file.path)) continue;
      const declared = file.path.startsWith('src/')
        ? pkg.dependencies
        : { ...pkg.dependencies, ...pkg.devDependencies };
      for (const specifier of importsOf(file.content)) {
        const name = packageOf(specifier);
        if (name && !(name in declared) && !(`@types/${name}` in declared)) missing.push(`${file.path}: ${name}`);
      }
    }
    expect(missing).toEqual([]);
    // The check sees imports at all.
    expect(importsOf(tree.get('src/app.ts')!.content)).toContain('fastify');
  });
});
