/** The databases the end-to-end suites run on: a SQLite file, or a fresh PostgreSQL database. */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.js';
import { createRequire } from 'node:module';
import { freshPostgresDatabase, runPostgres } from './postgres.js';

export const ENGINES = ['sqlite', 'postgres'] as const;
export type Engine = (typeof ENGINES)[number];

export interface TestDatabase {
  /** The `database.url` setting. */
  readonly url: string;
  drop(): Promise<void>;
}

export async function testDatabase(engine: Engine, projectDir: string, label: string): Promise<TestDatabase> {
  if (engine === 'postgres') return freshPostgresDatabase(projectDir, label);
  const dir = join(repoRoot, '.tmp', 'dbs');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${label}-${randomBytes(4).toString('hex')}.db`);
  return {
    url: `sqlite:${file}`,
    drop: async () => {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    },
  };
}

/** Runs `sql` on a test database directly, behind the service's back (with the generated project's drivers). */
export async function runSql(engine: Engine, url: string, projectDir: string, sql: string): Promise<void> {
  if (engine === 'postgres') return runPostgres(projectDir, url, sql);
  const Database = createRequire(join(projectDir, 'node_modules', 'noop.js'))('better-sqlite3') as new (file: string) => { exec(sql: string): void; close(): void };
  const db = new Database(url.slice('sqlite:'.length));
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}
