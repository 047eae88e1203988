/**
 * Comments and messages point only at what a reader of the repository (or of a generated project)
 * has: no section numbers of documents that live outside it (the product contract, research notes).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/paths.js';

const ROOTS = ['src', 'runtime', 'test', 'templates', 'bench', 'scripts'];
const OUTSIDE_REFERENCE = /\b(?:contract|service spec|spec|reliability|raml08\.md|search\.md)\s+§/i;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? e.name === 'node_modules'
        ? []
        : filesUnder(join(dir, e.name))
      : /\.(ts|mjs|js|hbs|md|sh)$/.test(e.name)
        ? [join(dir, e.name)]
        : [],
  );
}

describe('references', () => {
  it('cite no section of a document outside the repository', () => {
    const found = ROOTS.flatMap((root) => filesUnder(join(repoRoot, root))).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          OUTSIDE_REFERENCE.test(line) && !line.includes('OUTSIDE_REFERENCE')
            ? [`${relative(repoRoot, file)}:${i + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(found).toEqual([]);
  });
});
