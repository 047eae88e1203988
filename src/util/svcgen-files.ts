/**
 * Where svcgen's own files are: its package.json, the project templates and the runtime that
 * every generated project carries. Found from this module's place, which is `src/util/` under the
 * tests and `dist/src/util/` when built.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder of svcgen's package.json. */
export const SVCGEN_ROOT = packageRoot(dirname(fileURLToPath(import.meta.url)));

/** The handlebars templates of a project (`<name>.hbs`). */
export const TEMPLATE_ROOT = join(SVCGEN_ROOT, 'templates', 'project');

/** The runtime (runtime/README.md): copied as it is into every project. */
export const RUNTIME_ROOT = join(SVCGEN_ROOT, 'runtime');

function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'svcgen')
      return dir;
    if (dirname(dir) === dir) throw new Error(`svcgen's package.json is not above ${from}`);
  }
}
