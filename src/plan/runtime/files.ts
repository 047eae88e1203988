/**
 * The runtime's files (runtime/README.md), by their path in a generated project: `runtime/src/`,
 * `runtime/test/` and `runtime/scripts/` land in the project's own folders of those names, and
 * `runtime/project/` at its root. They are kept prettier-clean in svcgen's repository, so
 * generating copies them without formatting.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { RUNTIME_ROOT } from '../../util/svcgen-files.js';

export interface StaticFile {
  /** Its path in the generated project. */
  readonly path: string;
  readonly content: string;
}

/** Runtime folders and where their files go in a project. */
const PLACES: readonly { readonly from: string; readonly to: string }[] = [
  { from: 'project', to: '' },
  { from: 'client', to: 'client/' },
  { from: 'scripts', to: 'scripts/' },
  { from: 'src', to: 'src/' },
  { from: 'test', to: 'test/' },
];

let staticFiles: readonly StaticFile[] | undefined;

/** Every file of the runtime that projects get, by its path in the generated project. */
export function staticTemplates(): readonly StaticFile[] {
  staticFiles ??= PLACES.flatMap(({ from, to }) => {
    const root = join(RUNTIME_ROOT, from);
    return walk(root).map((file) => ({
      path: `${to}${relative(root, file).split(sep).join('/')}`,
      content: readFileSync(file, 'utf8'),
    }));
  }).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return staticFiles;
}

/** Where a project's runtime file comes from in svcgen's repository (`src/lib/model.ts` → `runtime/src/lib/model.ts`). */
export function runtimeSource(path: string): string {
  const place = PLACES.find((p) => p.to !== '' && path.startsWith(p.to)) ?? PLACES[0]!;
  return join(RUNTIME_ROOT, place.from, path.slice(place.to.length));
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => (entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)]));
}
