/** The diagnostics of a fixture of fixtures/invalid, with some of its files changed: a check's cases around one API. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from '../../src/diagnostics/diagnostic.js';
import { analyze } from '../../src/pipeline.js';
import { writeTree } from './files.js';
import { repoRoot } from './paths.js';

/** A fixture's file as it is. */
export function invalidFixtureFile(fixture: string, file: string): string {
  return readFileSync(join(repoRoot, 'fixtures', 'invalid', fixture, file), 'utf8');
}

/** The diagnostics of `fixture` with each file named in `edits` changed by its function. */
export function invalidFixtureDiagnostics(
  fixture: string,
  edits: Readonly<Record<string, (text: string) => string>> = {},
): readonly Diagnostic[] {
  const files = Object.fromEntries(
    readdirSync(join(repoRoot, 'fixtures', 'invalid', fixture)).map((file) => {
      const text = invalidFixtureFile(fixture, file);
      return [file, edits[file]?.(text) ?? text];
    }),
  );
  const dir = writeTree(files);
  return analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics;
}
