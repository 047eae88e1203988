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
  readonly engines: { readonly node: string };
  readonly overrides: Readonly<Record<string, string>>;
  readonly scarfSettings: { readonly enabled: boolean };
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
    // The Node every dependency runs on (vitest's vite needs 20.19): what the Dockerfile's node:20 is.
    engines: runtime.engines,
    scripts: {
      // The service, then its typed client (client/: a package of its own, built to client/dist).
      build: 'tsc -p tsconfig.build.json && tsc -p client/tsconfig.json',
      prestart: 'npm run build',
      // Stack traces name the TypeScript lines of src/ (a handler's crash pointed into dist/).
      start: 'node --enable-source-maps dist/server.js',
      // tsc --watch and node --watch dist/server.js (scripts/dev.mjs): no dependency of its own.
      dev: 'node scripts/dev.mjs',
      migrate: 'npm run build && node dist/db/migrate.js',
      // Everything (tests and the client too), then what the build compiles: src/ alone, so that an
      // import of client/src from src/ fails here as it would fail the build.
      typecheck: 'tsc --noEmit && tsc -p tsconfig.build.json --noEmit',
      test: 'vitest run',
    },
    dependencies: Object.fromEntries(
      Object.entries(runtime.dependencies).filter(([name]) => ir.auth || !runtime.svcgen.authOnly.includes(name)),
    ),
    devDependencies: runtime.devDependencies,
    // npm 11 warns of install scripts not reviewed here (npm 12 will skip them): better-sqlite3 and
    // argon2 build where no prebuilt binary fits; @scarf/scarf's only reports the install (off).
    allowScripts: Object.fromEntries(
      Object.entries(runtime.svcgen.allowScripts).filter(
        ([name]) => ir.auth || !runtime.svcgen.authOnly.includes(name),
      ),
    ),
    // Fastify's cookie support asks for cookie 2, which claims Node 22 (npm warns EBADENGINE on Node
    // 20); cookie 1.1 has the same functions (parseCookie, stringifySetCookie) and runs on Node 18.
    overrides: runtime.overrides,
    // The docs page's swagger-ui-dist depends on @scarf/scarf, whose install script reports the
    // install to scarf.sh: off, as a generated service should not phone home.
    scarfSettings: runtime.scarfSettings,
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}
