import { join } from 'node:path';
import type { Diagnostic } from '../../src/diagnostics/diagnostic.js';
import { positionAt } from '../../src/diagnostics/source.js';
import { readRaml, type FrontEndResult } from '../../src/raml/front-end.js';
import { writeTree } from './files.js';

/** Runs the front end on files written to a temporary folder; `api.raml` is the root. */
export function readFiles(
  files: Record<string, string | Uint8Array>,
  root = 'api.raml',
): FrontEndResult & { dir: string } {
  const dir = writeTree(files);
  return { ...readRaml(join(dir, root), { cwd: dir }), dir };
}

/** `CODE file:line:column` for each diagnostic: compact and exact, for assertions. */
export function brief(diagnostics: readonly Diagnostic[], cwd?: string): string[] {
  return diagnostics.map((d) => {
    if (!d.span) return `${d.code}`;
    const { line, column } = positionAt(d.span.source, d.span.start);
    const file =
      cwd && d.span.source.path.startsWith(cwd) ? d.span.source.path.slice(cwd.length + 1) : d.span.source.path;
    return `${d.code} ${file}:${line}:${column}`;
  });
}

export function codes(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((d) => d.code);
}
