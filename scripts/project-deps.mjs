// The dependencies of generated projects, installed once per machine and set of versions into
// .tmp/project-deps/<hash>/node_modules (a real `npm install` of the generated package.json's
// dependencies) and linked into each generated project by the tests and benchmarks.
// better-sqlite3 builds from source where no prebuilt binary can be downloaded: about two minutes, once.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const INSTALL_TIMEOUT_MS = 20 * 60_000;

/** Links the shared node_modules of generated projects into `dir`. */
export async function linkDependencies(dir) {
  const modules = await installedDependencies();
  rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
  symlinkSync(modules, join(dir, 'node_modules'), 'dir');
  return modules;
}

/**
 * The node_modules folder with the dependencies of generated projects, installed if needed: those
 * of the runtime (runtime/package.json), which every generated package.json takes its versions
 * from. The ones only some projects have (authentication's) are installed for every project, so
 * that a fresh machine installs (and compiles better-sqlite3) once, not once per set;
 * test/generate/dependencies.test.ts checks that each project declares everything it imports.
 */
export async function installedDependencies() {
  const runtime = JSON.parse(readFileSync(join(repoRoot, 'runtime', 'package.json'), 'utf8'));
  const manifest = {
    name: 'svcgen-project-deps',
    private: true,
    type: 'module',
    dependencies: runtime.dependencies,
    devDependencies: runtime.devDependencies,
    allowScripts: runtime.svcgen.allowScripts,
    overrides: runtime.overrides,
    scarfSettings: runtime.scarfSettings,
  };
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  const root = join(repoRoot, '.tmp', 'project-deps');
  const dir = join(root, createHash('sha256').update(text).digest('hex').slice(0, 16));
  const done = join(dir, 'node_modules', '.svcgen-installed');
  const lock = `${dir}.lock`;
  mkdirSync(root, { recursive: true });
  const started = Date.now();
  // Several test processes may ask at once: one installs (holding a lock folder), the others wait.
  while (!existsSync(done)) {
    if (tryLock(lock)) {
      try {
        if (!existsSync(done)) await install(dir, text, done);
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
      break;
    }
    if (Date.now() - started > INSTALL_TIMEOUT_MS)
      throw new Error(`waited too long for another process installing ${dir}`);
    await sleep(1000);
  }
  return join(dir, 'node_modules');
}

function tryLock(lock) {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    return false;
  }
}

async function install(dir, packageJson, done) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), packageJson);
  // Use the system's Node headers for native builds when they are there (see .ci/run).
  const nodedir = process.env.npm_config_nodedir ?? (existsSync('/usr/include/node/node.h') ? '/usr' : undefined);
  try {
    // Its warnings are kept (install.log): the install test reads them (no EBADENGINE).
    const { stdout, stderr } = await promisify(execFile)(
      'npm',
      ['install', '--no-audit', '--no-fund', '--loglevel=warn'],
      {
        cwd: dir,
        timeout: INSTALL_TIMEOUT_MS,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, ...(nodedir ? { npm_config_nodedir: nodedir } : {}) },
      },
    );
    writeFileSync(join(dir, 'install.log'), `${stdout}${stderr}`);
  } catch (error) {
    throw new Error(
      `npm install of the generated project's dependencies failed:\n${error.stdout ?? ''}${error.stderr ?? error.message}`,
    );
  }
  writeFileSync(done, new Date().toISOString());
}
