/**
 * No import cycles: not in svcgen's own code (src/), not in the runtime (runtime/), not in a
 * generated project (ramses-example's, which has every kind of generated and user-owned file). A
 * cycle is a knot a newcomer must untie to change either side; each is listed by its files.
 */
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph, importGraphOf, sourceFiles } from '../support/imports.js';
import { generateFixture } from '../support/generated.js';
import { repoRoot } from '../support/paths.js';

describe('import cycles', () => {
  it.each(['src', 'runtime'])('there are none in %s/', (dir) => {
    expect(importCycles(importGraph(repoRoot, sourceFiles(repoRoot, dir)))).toEqual([]);
  });

  it('there are none in a generated project', async () => {
    const tree = await generateFixture('ramses-example');
    const sources = new Map([...tree].filter(([path]) => path.endsWith('.ts')).map(([path, f]) => [path, f.content]));
    expect(importCycles(importGraphOf(sources))).toEqual([]);
  });

  it('finds a cycle, and a file that imports itself', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    expect(importCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  });
});
