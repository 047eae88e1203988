/**
 * The project templates' folder (`templates/project/`), and its static files: the runtime library
 * and the other files every generated project gets as they are. They are kept prettier-clean in
 * svcgen's repository (test/generate/templates.test.ts), so generating copies them without
 * formatting.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const TEMPLATE_ROOT = fileURLToPath(new URL('../../templates/project/', import.meta.url));
const STATIC_ROOT = join(TEMPLATE_ROOT, 'static');

export interface StaticFile {
  /** Its path in the generated project. */
  readonly path: string;
  readonly content: string;
}

let staticFiles: readonly StaticFile[] | undefined;

/** Every file under `templates/project/static/`, by its path in the generated project. */
export function staticTemplates(): readonly StaticFile[] {
  staticFiles ??= walk(STATIC_ROOT).map((file) => ({
    path: relative(STATIC_ROOT, file).split(sep).join('/'),
    content: readFileSync(file, 'utf8'),
  }));
  return staticFiles;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => (entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)]));
}
