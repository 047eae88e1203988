/** The databases the end-to-end suites run on: a SQLite file, or a fresh PostgreSQL database. */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.js';
import { createRequire } from 'node:module';
import { failCommands, freshMongoDatabase, onDatabase, setOnEvery } from './mongodb.js';
import { freshPostgresDatabase, queryPostgres, runPostgres } from './postgres.js';

export const ENGINES = ['sqlite', 'postgres', 'mongodb'] as const;
export type Engine = (typeof ENGINES)[number];

export interface TestDatabase {
  /** The `database.url` (SQL) or `mongodb.url` setting. */
  readonly url: string;
  /** The settings that select it, for a service's environment. */
  readonly env: Record<string, string>;
  drop(): Promise<void>;
}

export async function testDatabase(engine: Engine, projectDir: string, label: string): Promise<TestDatabase> {
  if (engine === 'mongodb') {
    const mongo = await freshMongoDatabase(label);
    return { ...mongo, env: { SVC_ENGINE: 'svc_mongodb', SVC_MONGODB_URL: mongo.url } };
  }
  if (engine === 'postgres') {
    const pg = await freshPostgresDatabase(projectDir, label);
    return { ...pg, env: { SVC_DATABASE_URL: pg.url } };
  }
  const dir = join(repoRoot, '.tmp', 'dbs');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${label}-${randomBytes(4).toString('hex')}.db`);
  return {
    url: `sqlite:${file}`,
    env: { SVC_DATABASE_URL: `sqlite:${file}` },
    drop: () => {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
      return Promise.resolve();
    },
  };
}

/** Makes reading the `story` table (collection) fail, behind the service's back. */
export async function breakStoryTable(engine: Engine, url: string, projectDir: string): Promise<void> {
  if (engine === 'mongodb') return failCommands(url, 'story', ['find', 'aggregate']);
  return runSql(engine, url, projectDir, 'alter table story rename to story_gone');
}

/** Gives every row of `table` a column `stray` = 'stray value' that no model declares, behind the service's back. */
export async function plantStrayColumn(engine: Engine, url: string, projectDir: string, table: string): Promise<void> {
  if (engine === 'mongodb') return setOnEvery(url, table, 'stray', 'stray value');
  return runSql(engine, url, projectDir, `alter table ${table} add column stray varchar(20) default 'stray value'`);
}

/** Deletes every row of `table` (document of the collection), behind the service's back. */
export async function emptyTable(engine: Engine, url: string, projectDir: string, table: string): Promise<void> {
  if (engine === 'mongodb')
    return void (await onDatabase(url, (client) => client.db().collection(table).deleteMany({})));
  return runSql(engine, url, projectDir, `delete from ${table}`);
}

/** Runs `sql` on a test database directly, behind the service's back (with the generated project's drivers). */
export async function runSql(
  engine: Exclude<Engine, 'mongodb'>,
  url: string,
  projectDir: string,
  sql: string,
): Promise<void> {
  if (engine === 'postgres') return runPostgres(projectDir, url, sql);
  onSqlite(projectDir, url, (db) => db.exec(sql));
}

/** The rows of `sql` on a test database, read directly, behind the service's back. */
export async function querySql(
  engine: Exclude<Engine, 'mongodb'>,
  url: string,
  projectDir: string,
  sql: string,
): Promise<unknown[]> {
  if (engine === 'postgres') return queryPostgres(projectDir, url, sql);
  return onSqlite(projectDir, url, (db) => db.prepare(sql).all());
}

/** Everything the outbox (`svc_events`) stores, as text: what a copy of the database would give away. */
export async function storedEvents(engine: Engine, url: string, projectDir: string): Promise<string> {
  if (engine === 'mongodb')
    return onDatabase(url, async (client) =>
      JSON.stringify(await client.db().collection('svc_events').find().toArray()),
    );
  const select = 'select * from svc_events';
  if (engine === 'postgres') return JSON.stringify(await queryPostgres(projectDir, url, select));
  return JSON.stringify(onSqlite(projectDir, url, (db) => db.prepare(select).all()));
}

interface SqliteFile {
  exec(sql: string): void;
  prepare(sql: string): { all(): unknown[] };
  close(): void;
}

/** `work` on the SQLite file of `url`, with the generated project's better-sqlite3; closed after. */
function onSqlite<R>(projectDir: string, url: string, work: (db: SqliteFile) => R): R {
  const Database = createRequire(join(projectDir, 'node_modules', 'noop.js'))('better-sqlite3') as new (
    file: string,
  ) => SqliteFile;
  const db = new Database(url.slice('sqlite:'.length));
  try {
    return work(db);
  } finally {
    db.close();
  }
}
