/** The databases the end-to-end suites run on: a SQLite file, or a fresh PostgreSQL database. */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.js';
import { createRequire } from 'node:module';
import type * as Mongo from 'mongodb';
import { failCommands, freshMongoDatabase, setOnEvery } from './mongodb.js';
import { freshPostgresDatabase, runPostgres } from './postgres.js';

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

/** Runs `sql` on a test database directly, behind the service's back (with the generated project's drivers). */
export async function runSql(
  engine: Exclude<Engine, 'mongodb'>,
  url: string,
  projectDir: string,
  sql: string,
): Promise<void> {
  if (engine === 'postgres') return runPostgres(projectDir, url, sql);
  const Database = createRequire(join(projectDir, 'node_modules', 'noop.js'))('better-sqlite3') as new (
    file: string,
  ) => { exec(sql: string): void; close(): void };
  const db = new Database(url.slice('sqlite:'.length));
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

/** Everything the outbox (`svc_events`) stores, as text: what a copy of the database would give away. */
export async function storedEvents(engine: Engine, url: string, projectDir: string): Promise<string> {
  const load = createRequire(join(projectDir, 'node_modules', 'noop.js'));
  if (engine === 'mongodb') {
    const { MongoClient } = load('mongodb') as typeof Mongo;
    const client = await MongoClient.connect(url);
    try {
      return JSON.stringify(await client.db().collection('svc_events').find().toArray());
    } finally {
      await client.close();
    }
  }
  if (engine === 'postgres') {
    const pg = load('pg') as {
      Client: new (o: { connectionString: string }) => {
        connect(): Promise<void>;
        query(sql: string): Promise<{ rows: unknown[] }>;
        end(): Promise<void>;
      };
    };
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return JSON.stringify((await client.query('select * from svc_events')).rows);
    } finally {
      await client.end();
    }
  }
  const Database = load('better-sqlite3') as new (
    file: string,
    o: { readonly: boolean },
  ) => {
    prepare(sql: string): { all(): unknown[] };
    close(): void;
  };
  const db = new Database(url.slice('sqlite:'.length), { readonly: true });
  try {
    return JSON.stringify(db.prepare('select * from svc_events').all());
  } finally {
    db.close();
  }
}
