/**
 * package.json of a generated project: its scripts, and the dependencies of the runtime it carries
 * (runtime/package.json; authentication's only where the API has it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServiceIR } from '../../ir/types.js';
import { RUNTIME_ROOT } from '../../util/svcgen-files.js';

/** runtime/package.json: what the runtime needs, the versions every generated project depends on. */
interface RuntimePackage {
  readonly dependencies: Readonly<Record<string, string>>;
  readonly devDependencies: Readonly<Record<string, string>>;
  readonly svcgen: {
    /** Only APIs with authentication depend on these (scripts/runtime-deps.mjs installs them for every project). */
    readonly authOnly: readonly string[];
    readonly allowScripts: Readonly<Record<string, boolean>>;
  };
}

let runtimePackage: RuntimePackage | undefined;

function runtimeManifest(): RuntimePackage {
  runtimePackage ??= JSON.parse(readFileSync(join(RUNTIME_ROOT, 'package.json'), 'utf8')) as RuntimePackage;
  return runtimePackage;
}

export function packageJson(ir: ServiceIR): string {
  const runtime = runtimeManifest();
  const pkg = {
    name: ir.name,
    version: '1.0.0',
    description: ir.title,
    private: true,
    type: 'module',
    engines: { node: '>=20.17' },
    scripts: {
      build: 'tsc -p tsconfig.build.json',
      prestart: 'npm run build',
      start: 'node dist/server.js',
      // tsc --watch and node --watch dist/server.js (scripts/dev.mjs): no dependency of its own.
      dev: 'node scripts/dev.mjs',
      migrate: 'npm run build && node dist/db/migrate.js',
      typecheck: 'tsc --noEmit',
      test: 'vitest run',
    },
    dependencies: Object.fromEntries(
      Object.entries(runtime.dependencies).filter(([name]) => ir.auth || !runtime.svcgen.authOnly.includes(name)),
    ),
    devDependencies: runtime.devDependencies,
    // npm 11 asks before running install scripts; better-sqlite3 needs its build.
    allowScripts: runtime.svcgen.allowScripts,
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}
