// Platformatic DB 2.x for bench/serve.mjs, installed once into .tmp/bench-platformatic: its
// sql-mapper and sql-openapi (what `platformatic db` serves) with fastify 5 and pg 8. Its SQLite
// driver (better-sqlite3, through @matteo.collina/sqlite-pool) is pinned to the version the
// generated projects use and takes their compiled binary, instead of compiling it once more.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PACKAGES = ['@platformatic/sql-mapper@2.61.0', '@platformatic/sql-openapi@2.61.0', 'fastify@5', 'pg@8'];

/** The node_modules folder of Platformatic DB, next to `projectModules` (a generated project's). */
export function platformaticModules(root, projectModules) {
  const dir = join(root, '.tmp', 'bench-platformatic');
  const modules = join(dir, 'node_modules');
  const done = join(modules, '.installed');
  if (existsSync(done)) return modules;
  const sqliteVersion = JSON.parse(
    readFileSync(join(projectModules, 'better-sqlite3', 'package.json'), 'utf8'),
  ).version;
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'bench-platformatic', private: true, overrides: { 'better-sqlite3': sqliteVersion } }),
  );
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...PACKAGES], {
    cwd: dir,
    stdio: 'inherit',
  });
  const binary = join('better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  mkdirSync(join(modules, 'better-sqlite3', 'build', 'Release'), { recursive: true });
  copyFileSync(join(projectModules, binary), join(modules, binary));
  writeFileSync(done, PACKAGES.join('\n'));
  return modules;
}
