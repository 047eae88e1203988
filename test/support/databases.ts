/** The databases the end-to-end suites run on: a SQLite file, or a fresh PostgreSQL database. */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.js';
import { freshPostgresDatabase } from './postgres.js';

export const ENGINES = ['sqlite', 'postgres'] as const;
export type Engine = (typeof ENGINES)[number];

export interface TestDatabase {
  /** The `database.url` setting. */
  readonly url: string;
  drop(): Promise<void>;
}

export async function testDatabase(engine: Engine, projectDir: string, label: string): Promise<TestDatabase> {
  if (engine === 'postgres') return freshPostgresDatabase(join(projectDir, 'node_modules'), label);
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
