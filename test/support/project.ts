/**
 * Generated projects for end-to-end tests. The projects' dependencies are installed once per
 * machine and set of versions (`.tmp/project-deps/<hash>`, a real `npm install` of the generated
 * package.json's dependencies) and linked into every generated project: better-sqlite3 builds
 * from source in about two minutes, once.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { repoRoot } from './paths.js';
import { runCli } from './cli.js';

export const fixtureRaml = (fixture: string) => join(repoRoot, 'fixtures', fixture, 'api.raml');

/** Generates `fixture` into `.tmp/<area>/<fixture>` (fresh), links the dependencies, and returns the folder. */
export async function generatedProject(fixture: string, area: string): Promise<string> {
  const dir = join(repoRoot, '.tmp', area, fixture);
  rmSync(dir, { recursive: true, force: true });
  const run = await runCli(['generate', fixtureRaml(fixture), '-o', dir], repoRoot);
  if (run.code !== 0) throw new Error(`svcgen generate ${fixture} failed (${run.code}):\n${run.stderr}`);
  await linkDependencies(dir);
  return dir;
}

/** Links the shared `node_modules` for the project's package.json into `dir`. */
export async function linkDependencies(dir: string): Promise<void> {
  const modules = await installedDependencies(readFileSync(join(dir, 'package.json'), 'utf8'));
  rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
  symlinkSync(modules, join(dir, 'node_modules'), 'dir');
}

/** Runs a tool of the shared dependencies (`tsc`, `vitest`) in `dir`. */
export function tool(dir: string, name: string, args: readonly string[], env: Record<string, string> = {}) {
  return execa(join(dir, 'node_modules', '.bin', name), args, { cwd: dir, reject: false, all: true, env: { ...env, FORCE_COLOR: '0', NO_COLOR: '1' }, timeout: 300_000 });
}

const INSTALL_TIMEOUT_MS = 20 * 60_000;

async function installedDependencies(packageJson: string): Promise<string> {
  const pkg = JSON.parse(packageJson) as Record<string, unknown>;
  const manifest = { name: 'svcgen-project-deps', private: true, type: 'module', dependencies: pkg['dependencies'], devDependencies: pkg['devDependencies'], allowScripts: pkg['allowScripts'] };
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  const dir = join(repoRoot, '.tmp', 'project-deps', createHash('sha256').update(text).digest('hex').slice(0, 16));
  const done = join(dir, 'node_modules', '.svcgen-installed');
  const lock = `${dir}.lock`;
  mkdirSync(join(repoRoot, '.tmp', 'project-deps'), { recursive: true });
  const started = Date.now();
  while (!existsSync(done)) {
    if (tryLock(lock)) {
      try {
        if (!existsSync(done)) await install(dir, text, done);
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
      break;
    }
    if (Date.now() - started > INSTALL_TIMEOUT_MS) throw new Error(`waited too long for another test process installing ${dir}`);
    await sleep(1000);
  }
  return join(dir, 'node_modules');
}

function tryLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    return false;
  }
}

async function install(dir: string, packageJson: string, done: string): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), packageJson);
  // Native addons build from source where prebuilt binaries cannot be downloaded: use the
  // system's Node headers when they are there (see .ci/run).
  const nodedir = process.env['npm_config_nodedir'] ?? (existsSync('/usr/include/node/node.h') ? '/usr' : undefined);
  const result = await execa('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: dir,
    reject: false,
    all: true,
    timeout: INSTALL_TIMEOUT_MS,
    env: nodedir ? { npm_config_nodedir: nodedir } : {},
  });
  if (result.exitCode !== 0) throw new Error(`npm install of the generated project's dependencies failed:\n${result.all}`);
  writeFileSync(done, new Date().toISOString());
}

const built = new Map<string, Promise<string>>();

/** A generated, dependency-linked and compiled (`dist/`) project, once per fixture and area in a test process. */
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
