/**
 * What an installed svcgen holds: package.json's `files`. The diagnostics' hints send the user to
 * the docs (`docs/diagnostics.md`, `docs/schema.md`): a probe installed the CLI and had no such file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/paths.js';

const files = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { files: string[] }).files;
const shipped = (path: string) => files.some((entry) => path === entry || path.startsWith(`${entry}/`));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the files an installed svcgen holds', () => {
  it('hold every file of docs/ that the generator’s messages name', () => {
    const ours = new Set(readdirSync(join(repoRoot, 'docs')).map((name) => `docs/${name}`));
    const named = new Set<string>();
    for (const file of sourceFiles(join(repoRoot, 'src')))
      for (const [path] of readFileSync(file, 'utf8').matchAll(/docs\/[\w-]+\.md/g))
        // `docs/intro.md` in a hint is the user's own file, not one of ours.
        if (ours.has(path)) named.add(path);
    expect(named.size, 'the messages name some of docs/').toBeGreaterThan(0);
    expect(
      [...named].filter((path) => !shipped(path)),
      'not in package.json "files"',
    ).toEqual([]);
  });
});
