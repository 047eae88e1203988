/**
 * Generated projects for end-to-end tests, with the dependencies installed once per machine
 * (scripts/project-deps.mjs) and linked in.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { linkDependencies as link } from '../../scripts/project-deps.mjs';
import { repoRoot } from './paths.js';
import { runCli } from './cli.js';
import { writeTree } from './files.js';

export const fixtureRaml = (fixture: string) => join(repoRoot, 'fixtures', fixture, 'api.raml');

/** Generates `fixture` into `.tmp/<area>/<fixture>` (fresh), links the dependencies, and returns the folder. */
export async function generatedProject(fixture: string, area: string): Promise<string> {
  const dir = join(repoRoot, '.tmp', area, fixture);
  rmSync(dir, { recursive: true, force: true });
  await generateLinked(fixtureRaml(fixture), dir);
  return dir;
}

/**
 * An API a test states whole (`files`: its api.raml and schemas), generated into
 * `.tmp/<area>/project` (the area emptied first) with the dependencies linked; returns the folder.
 */
export async function projectOf(files: Record<string, string>, area: string): Promise<string> {
  const work = join(repoRoot, '.tmp', area);
  rmSync(work, { recursive: true, force: true });
  const dir = join(work, 'project');
  await generateLinked(join(writeTree(files), 'api.raml'), dir);
  return dir;
}

async function generateLinked(raml: string, dir: string): Promise<void> {
  const run = await runCli(['generate', raml, '-o', dir], repoRoot);
  if (run.code !== 0) throw new Error(`svcgen generate ${raml} failed (${run.code}):\n${run.stderr}`);
  await linkDependencies(dir);
}

/** Links the shared `node_modules` for the project's package.json into `dir`. */
export async function linkDependencies(dir: string): Promise<void> {
  await link(dir);
}

/** Runs a tool of the shared dependencies (`tsc`, `vitest`) in `dir`. */
export function tool(dir: string, name: string, args: readonly string[], env: Record<string, string> = {}) {
  return execa(join(dir, 'node_modules', '.bin', name), args, {
    cwd: dir,
    reject: false,
    all: true,
    env: { ...env, FORCE_COLOR: '0', NO_COLOR: '1' },
    timeout: 300_000,
  });
}

const built = new Map<string, Promise<string>>();

/**
 * A generated, dependency-linked and compiled (`dist/`) project, once per fixture and area in a
 * test process. Test files run in parallel processes: each file uses an area of its own, or one
 * would regenerate the folder under the other's running service.
 */
export function builtProject(fixture: string, area: string): Promise<string> {
  const key = `${area}/${fixture}`;
  let project = built.get(key);
  if (!project) {
    project = (async () => {
      const dir = await generatedProject(fixture, area);
      const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
      if (build.exitCode !== 0) throw new Error(`npm run build of ${fixture} failed:\n${build.all}`);
      return dir;
    })();
    built.set(key, project);
  }
  return project;
}

/**
 * The database of a compiled project (`dist/db`), opened as its server would with `env` as
 * settings: for tests that use the repositories directly, as handlers do.
 */
export async function openProjectDatabase<D>(dir: string, env: Record<string, string>): Promise<D> {
  const { loadServiceConfig } = (await import(pathToFileURL(join(dir, 'dist/config.js')).href)) as {
    loadServiceConfig: (env: Record<string, string>) => unknown;
  };
  const { openDatabase } = (await import(pathToFileURL(join(dir, 'dist/db/index.js')).href)) as {
    openDatabase: (config: unknown) => Promise<D>;
  };
  return openDatabase(loadServiceConfig({ SVC_CONFIG: join(dir, 'none.ini'), ...env }));
}

/**
 * The app of a compiled project, built in this process (requests go through `inject`) on the
 * database its server would open with `env` as settings. Close the app, then the database.
 */
export async function inProcessApp<A>(
  dir: string,
  env: Record<string, string>,
): Promise<{ app: A; db: { close(): Promise<void> } }> {
  const db = await openProjectDatabase<{ close(): Promise<void> }>(dir, env);
  const { loadServiceConfig } = (await import(pathToFileURL(join(dir, 'dist/config.js')).href)) as {
    loadServiceConfig: (env: Record<string, string>) => unknown;
  };
  const { buildApp } = (await import(pathToFileURL(join(dir, 'dist/app.js')).href)) as {
    buildApp: (config: unknown, db: unknown, options: object) => Promise<A>;
  };
  return { app: await buildApp(loadServiceConfig(env), db, { logger: false }), db };
}
