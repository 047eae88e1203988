/**
 * The migration runner of generated projects (lib/migrate.ts on SQL, lib/mongo/migrate.ts on
 * MongoDB), with hand-written migrations against the compiled runtime of a generated project:
 * pending migrations applied in order, one transaction each, recorded by name; a SQLite table
 * rebuild that keeps the rows of `on delete cascade` children (foreign keys off outside the
 * transaction); links left broken roll a migration back; a changed or an unknown applied
 * migration refuses; several processes migrate one database once; a table lock held elsewhere is
 * a clear error; `npm run migrate -- --dry-run` prints and changes nothing. MongoDB: every step
 * kind, applied twice to the same result, refusals, and the lock document.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from '../support/databases.js';
import { freshMongoDatabase } from '../support/mongodb.js';
import { repoRoot } from '../support/paths.js';
import { pk, storageChanges, text } from '../support/migration-apis.js';
import { builtProject } from '../support/project.js';
import { mongoSteps } from '../../src/plan/migrations/storage/mongo.js';

interface Migration {
  name: string;
  sqlite: string;
  postgres: string;
  mongodb?: readonly Record<string, unknown>[];
}
interface SqlDatabase {
  all<R = Record<string, unknown>>(query: { sql: string; parameters: unknown[] }): Promise<R[]>;
  execute(script: string): Promise<void>;
  close(): Promise<void>;
}
interface SqlRuntime {
  migrate(db: SqlDatabase, migrations: readonly Migration[]): Promise<string[]>;
  planMigrations(db: SqlDatabase, migrations: readonly Migration[]): Promise<{ name: string; script: string }[]>;
  openSql(url: string): SqlDatabase;
}
interface MongoRuntime {
  migrateMongo(db: unknown, models: unknown, migrations: readonly Migration[]): Promise<string[]>;
  models: unknown;
  MongoClient: new (url: string) => MongoClientLike;
}
interface MongoClientLike {
  connect(): Promise<unknown>;
  close(): Promise<void>;
  db(): MongoDbLike;
}
interface MongoDbLike {
  collection(name: string): {
    insertMany(docs: object[]): Promise<unknown>;
    insertOne(doc: object): Promise<unknown>;
    find(filter?: object): {
      sort(s: object): { toArray(): Promise<Record<string, unknown>[]> };
      toArray(): Promise<Record<string, unknown>[]>;
    };
    findOne(filter: object): Promise<Record<string, unknown> | null>;
    deleteOne(filter: object): Promise<unknown>;
    createIndex(key: object, options: object): Promise<string>;
    listIndexes(): { toArray(): Promise<{ name: string; key: object; unique?: boolean; sparse?: boolean }[]> };
  };
  listCollections(filter?: object, options?: object): { toArray(): Promise<{ name: string }[]> };
}

const SQL_ENGINES = ['sqlite', 'postgres'] as const;
type SqlEngine = (typeof SQL_ENGINES)[number];

let dir: string;
let sql: SqlRuntime;
let mongo: MongoRuntime;
const databases: TestDatabase[] = [];

beforeAll(async () => {
  dir = await builtProject('blog', 'e2e-migration-runner');
  const load = (file: string) => import(pathToFileURL(join(dir, 'dist', file)).href);
  sql = { ...(await load('lib/migrate.js')), ...(await load('lib/sql/executor.js')) } as SqlRuntime;
  const projectRequire = createRequire(join(dir, 'node_modules', 'noop.js'));
  mongo = {
    ...(await load('lib/mongo/migrate.js')),
    ...(await load('models/index.js')),
    MongoClient: (projectRequire('mongodb') as { MongoClient: MongoRuntime['MongoClient'] }).MongoClient,
  } as MongoRuntime;
  addProjectMigration(archiveStories);
}, 600_000);

/** A migration with MongoDB steps only, after the project's own (for `npm run migrate`). */
const archiveStories: Migration = {
  name: '0002_archive_stories',
  sqlite: '',
  postgres: '',
  mongodb: [{ op: 'renameCollection', from: 'legacy_story', to: 'story_archive' }],
};

/** Adds `migration` to the compiled project's list (dist/db/migrations.js), as a new version of the API would. */
function addProjectMigration(migration: Migration): void {
  const compiled = join(dir, 'dist', 'db');
  copyFileSync(join(compiled, 'migrations.js'), join(compiled, 'migrations-generated.js'));
  writeFileSync(
    join(compiled, 'migrations.js'),
    `import { migrations as generated } from './migrations-generated.js';\nexport const migrations = [...generated, ${JSON.stringify(migration)}];\n`,
  );
}

afterAll(async () => {
  for (const database of databases) await database.drop().catch(() => undefined);
});

async function freshDatabase(engine: SqlEngine, label: string): Promise<TestDatabase> {
  const database = await testDatabase(engine, dir, label);
  databases.push(database);
  return database;
}

/** Runs `work` on a fresh database of `engine`, opened as the service opens it. */
async function onDatabase<T>(
  engine: SqlEngine,
  label: string,
  work: (db: SqlDatabase, url: string) => Promise<T>,
): Promise<T> {
  const database = await freshDatabase(engine, label);
  const db = sql.openSql(database.url);
  try {
    return await work(db, database.url);
  } finally {
    await db.close();
  }
}

const both = (sqlText: string): Pick<Migration, 'sqlite' | 'postgres'> => ({ sqlite: sqlText, postgres: sqlText });

const initial: Migration = {
  name: '0001_initial',
  sqlite: `
create table "t_author" ("id" integer primary key autoincrement, "name" text not null);
create table "t_post" ("id" integer primary key autoincrement, "title" text, "author_id" integer,
  foreign key ("author_id") references "t_author" ("id") on delete cascade on update cascade);`,
  postgres: `
create table "t_author" ("id" integer generated by default as identity primary key, "name" text not null);
create table "t_post" ("id" integer generated by default as identity primary key, "title" text,
  "author_id" integer references "t_author" ("id") on delete cascade on update cascade);`,
};
const addBio: Migration = { name: '0002_add_author_bio', ...both('alter table "t_author" add column "bio" text;') };
const addRating: Migration = {
  name: '0003_add_post_rating',
  ...both('alter table "t_post" add column "rating" integer;'),
};

const rows = <R = Record<string, unknown>>(db: SqlDatabase, text: string) => db.all<R>({ sql: text, parameters: [] });
const applied = async (db: SqlDatabase) =>
  (await rows<{ name: string }>(db, 'select name from svc_migrations order by name')).map((r) => r.name);
const seed = (db: SqlDatabase) =>
  db.execute(
    `insert into t_author (id, name) values (1, 'ann'), (2, 'bob'); insert into t_post (id, title, author_id) values (1, 'one', 1), (2, 'two', 1), (3, 'three', 2);`,
  );
const count = async (db: SqlDatabase, table: string) =>
  Number((await rows<{ n: unknown }>(db, `select count(*) as n from ${table}`))[0]!.n);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe.each(SQL_ENGINES)('the SQL migration runner on %s', (engine) => {
  it('applies the pending migrations in order, each in a transaction of its own, and records each by name', async () => {
    await onDatabase(engine, 'in-order', async (db) => {
      expect(await sql.migrate(db, [initial])).toEqual(['0001_initial']);
      await seed(db);
      expect(await sql.migrate(db, [initial, addBio, addRating])).toEqual([
        '0002_add_author_bio',
        '0003_add_post_rating',
      ]);
      expect(await applied(db)).toEqual(['0001_initial', '0002_add_author_bio', '0003_add_post_rating']);
      const [record] = await rows<{ checksum: string }>(
        db,
        "select checksum from svc_migrations where name = '0002_add_author_bio'",
      );
      expect(record!.checksum).toBe(sha256(addBio.sqlite));
      await db.execute("update t_author set bio = 'x'; update t_post set rating = 5");
      expect(await sql.migrate(db, [initial, addBio, addRating])).toEqual([]);
      // A failing migration is undone alone: the one before it stays applied.
      const failing: Migration = {
        name: '0004_fails',
        ...both('create table "t_half" ("id" integer); insert into "t_missing" values (1);'),
      };
      const more: Migration = {
        name: '0004_add_post_views',
        ...both('alter table "t_post" add column "views" integer;'),
      };
      const error = await sql.migrate(db, [initial, addBio, addRating, more, failing]).catch((e: unknown) => e);
      expect(String(error)).toMatch(
        /migration 0004_fails failed: .*t_missing.*; nothing of it was applied \(the migrations before it were\): .*; applied at this start, and kept: 0004_add_post_views$/,
      );
      expect(await applied(db)).toEqual([
        '0001_initial',
        '0002_add_author_bio',
        '0003_add_post_rating',
        '0004_add_post_views',
      ]);
      expect(await rows(db, 'select views from t_post')).toHaveLength(3);
      await expect(rows(db, 'select * from t_half')).rejects.toThrow(/t_half/);
    });
  });

  it('names the table and columns a unique constraint fails on, as the API has them, with the query that finds the duplicates', async () => {
    await onDatabase(engine, 'duplicates', async (db) => {
      await sql.migrate(db, [initial]);
      await seed(db);
      await db.execute("insert into t_author (id, name) values (3, 'ann')");
      // As svcgen rebuilds a SQLite table (a copy named svc_new_<table>); PostgreSQL adds the constraint in place.
      const unique: Migration = {
        name: '0002_unique_name',
        sqlite: `create table "svc_new_t_author" ("id" integer primary key autoincrement, "name" text not null unique);
insert into "svc_new_t_author" ("id", "name") select "id", "name" from "t_author";
drop table "t_author";
alter table "svc_new_t_author" rename to "t_author";`,
        postgres: 'alter table "t_author" add constraint "t_author_name_key" unique ("name");',
        mongodb: [],
      };
      const error = String(await sql.migrate(db, [initial, unique]).catch((e: unknown) => e));
      expect(error).not.toContain('svc_new_');
      expect(error).toMatch(
        engine === 'sqlite'
          ? /UNIQUE constraint failed: t_author\.name \(rows share a value there: select "name", count\(\*\) from "t_author" group by "name" having count\(\*\) > 1\); nothing of it was applied/
          : /Key \(name\)=\(ann\) is duplicated\.\) \(rows share a value there: select "name", count\(\*\) from "t_author" group by "name" having count\(\*\) > 1\); nothing of it was applied/,
      );
      expect(await applied(db)).toEqual(['0001_initial']);
    });
  });

  it('names the table and column of that query as they are again once the migration that renamed them was undone', async () => {
    await onDatabase(engine, 'renamed_duplicates', async (db) => {
      await sql.migrate(db, [initial]);
      await seed(db);
      await db.execute("insert into t_author (id, name) values (3, 'ann')");
      // A model renamed (its table) with a field renamed and made unique, in one migration.
      const renamed: Migration = {
        name: '0002_writer',
        sqlite: `alter table "t_author" rename to "t_writer";
alter table "t_writer" rename column "name" to "pen_name";
create table "svc_new_t_writer" ("id" integer primary key autoincrement, "pen_name" text not null unique);
insert into "svc_new_t_writer" ("id", "pen_name") select "id", "pen_name" from "t_writer";
drop table "t_writer";
alter table "svc_new_t_writer" rename to "t_writer";`,
        postgres: `alter table "t_author" rename to "t_writer";
alter table "t_writer" rename column "name" to "pen_name";
alter table "t_writer" add constraint "t_writer_pen_name_key" unique ("pen_name");`,
        mongodb: [],
      };
      const error = String(await sql.migrate(db, [initial, renamed]).catch((e: unknown) => e));
      expect(error).toContain(
        '(rows share a value there: select "name", count(*) from "t_author" group by "name" having count(*) > 1)',
      );
      expect(await applied(db)).toEqual(['0001_initial']);
      expect(await rows(db, 'select name from t_author')).toHaveLength(3);
    });
  });

  it.runIf(engine === 'postgres')(
    'names the field made required while rows have no value, with the query that finds them (PostgreSQL)',
    async () => {
      await onDatabase(engine, 'required', async (db) => {
        await sql.migrate(db, [initial]);
        await seed(db);
        // As svcgen writes it for PostgreSQL; SQLite's migration says it in a check of its own.
        const required: Migration = {
          name: '0002_required_title',
          sqlite: '',
          postgres: 'alter table "t_post" alter column "title" set not null;',
          mongodb: [],
        };
        await db.execute('update t_post set title = null where id = 2');
        const error = String(await sql.migrate(db, [initial, required]).catch((e: unknown) => e));
        expect(error).toContain(
          'a stored row has no value for t_post.title, and the field is now required: find them with select * from "t_post" where "title" is null',
        );
        expect(await applied(db)).toEqual(['0001_initial']);
      });
    },
  );

  it('records a migration with nothing to run on this engine without running anything', async () => {
    await onDatabase(engine, 'empty', async (db) => {
      const mongoOnly: Migration = {
        name: '0002_mongo_only',
        sqlite: '',
        postgres: '',
        mongodb: [{ op: 'dropCollection', collection: 'x' }],
      };
      expect(await sql.migrate(db, [initial, mongoOnly])).toEqual(['0001_initial', '0002_mongo_only']);
      const [record] = await rows<{ checksum: string }>(
        db,
        "select checksum from svc_migrations where name = '0002_mongo_only'",
      );
      expect(record!.checksum).toBe(sha256(''));
    });
  });

  it('rolls back a migration that leaves links to no row, and names the table', async () => {
    await onDatabase(engine, 'broken-links', async (db) => {
      await sql.migrate(db, [initial]);
      await seed(db);
      const orphan: Migration = {
        name: '0002_orphan',
        ...both(
          'alter table "t_post" add column "note" text; insert into "t_post" (id, title, author_id) values (9, \'orphan\', 404);',
        ),
      };
      const error = await sql.migrate(db, [initial, orphan]).catch((e: unknown) => e);
      expect(String(error)).toMatch(
        engine === 'sqlite'
          ? /migration 0002_orphan would leave 1 row\(s\) of table t_post linking to no row of t_author; nothing of it was applied/
          : /migration 0002_orphan failed: .*foreign key constraint.*; nothing of it was applied/,
      );
      expect(await applied(db)).toEqual(['0001_initial']);
      expect(await count(db, 't_post')).toBe(3);
      await expect(rows(db, 'select note from t_post')).rejects.toThrow(/note/);
      if (engine === 'sqlite') expect(await rows(db, 'pragma foreign_keys')).toEqual([{ foreign_keys: 1 }]);
    });
  });

  it('refuses a database whose applied migration has changed, and applies nothing', async () => {
    await onDatabase(engine, 'changed', async (db) => {
      await sql.migrate(db, [initial, addBio]);
      const edited = { ...addBio, sqlite: `${addBio.sqlite}\n`, postgres: `${addBio.postgres}\n` };
      await expect(sql.migrate(db, [initial, edited, addRating])).rejects.toThrow(
        'migration 0002_add_author_bio was applied to this database but has changed since: restore src/db/migrations/0002_add_author_bio.ts as it was applied (from version control), and make the change in a new migration (a database made only for development may be recreated instead)',
      );
      expect(await applied(db)).toEqual(['0001_initial', '0002_add_author_bio']);
    });
  });

  it('refuses a database migrated by a newer version (an applied migration the code does not know)', async () => {
    await onDatabase(engine, 'newer', async (db) => {
      await sql.migrate(db, [initial, addBio, addRating]);
      const error = await sql.migrate(db, [initial, addBio]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toBe(
        'the database was migrated by a newer version of this service (migration 0003_add_post_rating is unknown here); deploy that version or restore a backup',
      );
      expect((error as Error).constructor.name).toBe('MigrationError');
    });
  });

  it('lets five processes migrate one database at once: each migration is applied exactly once', async () => {
    const database = await freshDatabase(engine, 'concurrent');
    // Each migration takes a while (so that the processes overlap) and fails if run twice (no `if not exists`).
    const slow =
      engine === 'postgres'
        ? 'select pg_sleep(0.3);'
        : 'with recursive c(x) as (select 1 union all select x + 1 from c where x < 300000) select count(*) from c;';
    const migrations: Migration[] = [
      initial,
      ...[2, 3, 4].map((n) => ({
        name: `000${n}_step`,
        ...both(`${slow} create table "t_step${n}" ("id" integer); insert into "t_post" (title) values ('${n}');`),
      })),
    ];
    const work = join(repoRoot, '.tmp', 'e2e-migration-runner');
    mkdirSync(work, { recursive: true });
    const file = join(work, `migrations-${engine}.json`);
    writeFileSync(file, JSON.stringify(migrations));
    const runs = await Promise.all(
      [1, 2, 3, 4, 5].map(() =>
        execa('node', [migrateScript(work), dir, database.url, file], { reject: false, all: true, timeout: 60_000 }),
      ),
    );
    for (const run of runs) expect(run.exitCode, run.all).toBe(0);
    const appliedByRun = runs.map((run) => JSON.parse(run.stdout) as string[]);
    expect(appliedByRun.flat().sort()).toEqual(migrations.map((m) => m.name));
    const db = sql.openSql(database.url);
    try {
      expect(await applied(db)).toEqual(migrations.map((m) => m.name));
      expect(
        (await rows<{ title: string }>(db, 'select title from t_post order by title')).map((r) => r.title),
      ).toEqual(['2', '3', '4']);
    } finally {
      await db.close();
    }
  });
});

/** A script that migrates the database of argv[3] with the migrations of the JSON file argv[4], printing what it applied. */
function migrateScript(work: string): string {
  const script = join(work, 'migrate-with.mjs');
  writeFileSync(
    script,
    `import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
const [dir, url, file] = process.argv.slice(2);
const { migrate } = await import(pathToFileURL(join(dir, 'dist/lib/migrate.js')).href);
const { openSql } = await import(pathToFileURL(join(dir, 'dist/lib/sql/executor.js')).href);
const db = openSql(url);
try {
  console.log(JSON.stringify(await migrate(db, JSON.parse(readFileSync(file, 'utf8')))));
} finally {
  await db.close();
}
`,
  );
  return script;
}

describe('the SQL migration runner on SQLite', () => {
  it('rebuilds a parent table without touching the rows of its `on delete cascade` children (foreign keys off, outside the transaction)', async () => {
    await onDatabase('sqlite', 'rebuild', async (db) => {
      await sql.migrate(db, [initial]);
      await seed(db);
      // SQLite's way to change a column: a new table, the rows copied, the old one dropped, the new one renamed.
      const rebuild: Migration = {
        name: '0002_rebuild_author',
        sqlite: `
create table "t_author__new" ("id" integer primary key autoincrement, "name" text not null, "nickname" text);
insert into "t_author__new" ("id", "name") select "id", "name" from "t_author";
drop table "t_author";
alter table "t_author__new" rename to "t_author";`,
        postgres: 'alter table "t_author" add column "nickname" text;',
      };
      expect(await sql.migrate(db, [initial, rebuild])).toEqual(['0002_rebuild_author']);
      expect(await count(db, 't_post')).toBe(3);
      expect(await rows(db, 'select id, name, nickname from t_author order by id')).toEqual([
        { id: 1, name: 'ann', nickname: null },
        { id: 2, name: 'bob', nickname: null },
      ]);
      // Foreign keys are on again, and still point at the rebuilt table.
      expect(await rows(db, 'pragma foreign_keys')).toEqual([{ foreign_keys: 1 }]);
      await db.execute('delete from t_author where id = 2');
      expect(await count(db, 't_post')).toBe(2);
      await expect(db.execute("insert into t_post (title, author_id) values ('x', 404)")).rejects.toThrow(
        /FOREIGN KEY/,
      );
    });
  });
});

describe('the SQL migration runner on PostgreSQL', () => {
  it('gives up on a table another transaction holds after 10 s, with a clear message, and applies nothing', async () => {
    const database = await freshDatabase('postgres', 'lock-timeout');
    const db = sql.openSql(database.url);
    const pg = createRequire(join(dir, 'node_modules', 'noop.js'))('pg') as {
      Client: new (o: { connectionString: string }) => {
        connect(): Promise<void>;
        query(q: string): Promise<unknown>;
        end(): Promise<void>;
      };
    };
    const holder = new pg.Client({ connectionString: database.url });
    try {
      await sql.migrate(db, [initial]);
      await holder.connect();
      await holder.query('begin; select * from t_author');
      const started = Date.now();
      const error = await sql.migrate(db, [initial, addBio]).catch((e: unknown) => e);
      expect(Date.now() - started).toBeGreaterThanOrEqual(9_000);
      expect(String(error)).toMatch(
        /migration 0002_add_author_bio waited more than 10s for a table that another transaction holds .*; nothing of it was applied/,
      );
      await holder.query('rollback');
      expect(await applied(db)).toEqual(['0001_initial']);
      expect(await sql.migrate(db, [initial, addBio])).toEqual(['0002_add_author_bio']);
    } finally {
      await holder.end().catch(() => undefined);
      await db.close();
    }
  }, 60_000);
});

describe.each(SQL_ENGINES)('npm run migrate on %s', (engine) => {
  const run = (url: string, ...args: string[]) =>
    execa('node', ['dist/db/migrate.js', ...args], {
      cwd: dir,
      env: { SVC_CONFIG: join(dir, 'none.ini'), SVC_DATABASE_URL: url },
      reject: false,
      all: true,
      timeout: 60_000,
    });

  it('--dry-run prints the SQL it would run and changes nothing; then migrate applies it', async () => {
    const database = await freshDatabase(engine, 'dry-run');
    const dry = await run(database.url, '--dry-run');
    expect(dry.exitCode, dry.all).toBe(0);
    expect(dry.stdout).toContain('dry run: 2 migration(s) to apply, none applied');
    expect(dry.stdout).toContain('-- 0001_initial');
    expect(dry.stdout).toContain(
      '-- 0002_archive_stories\n-- (nothing to run on this database; it would only be recorded)',
    );
    expect(dry.stdout).toMatch(/create table "author" \(/);
    expect(dry.stdout).toContain(
      engine === 'sqlite'
        ? '"id" integer primary key autoincrement'
        : '"id" integer generated by default as identity primary key',
    );
    const db = sql.openSql(database.url);
    try {
      const tables =
        engine === 'sqlite'
          ? "select name from sqlite_master where type = 'table'"
          : "select tablename from pg_tables where schemaname = 'public'";
      expect(await rows(db, tables)).toEqual([]);
      const migrated = await run(database.url);
      expect(migrated.exitCode, migrated.all).toBe(0);
      expect(migrated.stdout).toContain('applied 0001_initial, 0002_archive_stories');
      expect(await applied(db)).toEqual(['0001_initial', '0002_archive_stories']);
      expect((await run(database.url, '--dry-run')).stdout).toContain('the database is up to date');
      // A database the code does not match: the dry run says so too.
      await db.execute("insert into svc_migrations (name, checksum, applied_at) values ('9999_future', 'x', 'then')");
      const refused = await run(database.url, '--dry-run');
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toContain(
        'Migrating failed: the database was migrated by a newer version of this service (migration 9999_future is unknown here)',
      );
    } finally {
      await db.close();
    }
  });
});

// --- MongoDB --------------------------------------------------------------------------------------

async function onMongo<T>(label: string, work: (db: MongoDbLike, url: string) => Promise<T>): Promise<T> {
  const database = await freshMongoDatabase(label);
  const client = new mongo.MongoClient(database.url);
  await client.connect();
  try {
    return await work(client.db(), database.url);
  } finally {
    await client.close();
    await database.drop();
  }
}

const mongoOnly = (name: string, steps: readonly Record<string, unknown>[]): Migration => ({
  name,
  sqlite: '',
  postgres: '',
  mongodb: steps,
});
const docs = (db: MongoDbLike, collection: string) => db.collection(collection).find({}).sort({ _id: 1 }).toArray();
const indexNames = async (db: MongoDbLike, collection: string) =>
  (await db.collection(collection).listIndexes().toArray()).map((i) => i.name).sort();
const collectionNames = async (db: MongoDbLike) =>
  (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();

const everyStep = mongoOnly('0002_every_step', [
  { op: 'renameField', collection: 'story', from: 'old', to: 'summary' },
  { op: 'unsetField', collection: 'story', field: 'gone' },
  { op: 'setMissing', collection: 'story', field: 'subtitle', value: '2026-01-02T03:04:05Z' },
  { op: 'setMissing', collection: 'author', field: 'joined_at', value: '2026-01-02T03:04:05Z' },
  { op: 'convertTemporal', collection: 'story', field: 'at', to: 'date' },
  { op: 'convertTemporal', collection: 'story', field: 'day', to: 'datetime' },
  { op: 'convertTemporal', collection: 'story', field: 'clock', to: 'time' },
  { op: 'convertToText', collection: 'story', field: 'founded' },
  { op: 'createIndex', collection: 'story', field: 'title', unique: true },
  { op: 'createIndex', collection: 'post', field: 'author', unique: true },
  { op: 'createIndex', collection: 'author', field: 'name', unique: false, asked: true },
  { op: 'dropIndex', collection: 'story', field: 'old' },
  { op: 'renameCollection', from: 'legacy', to: 'archive' },
  { op: 'dropCollection', collection: 'trash' },
  { op: 'dropCollection', collection: 'never_there' },
  { op: 'renameCollection', from: 'never_there', to: 'elsewhere' },
]);

async function seedMongo(db: MongoDbLike): Promise<void> {
  await db.collection('story').insertMany([
    {
      _id: 1,
      title: 'a',
      old: 'first',
      gone: true,
      at: new Date('2027-06-01T23:59:59Z'),
      day: '2027-06-02',
      clock: new Date('2027-06-01T08:30:00Z'),
      founded: 1900,
    },
    { _id: 2, title: 'b', subtitle: null, at: null },
    { _id: 3, title: 'c', subtitle: 'kept' },
  ]);
  await db.collection('story').createIndex({ old: 1 }, { name: 'old_link' });
  await db.collection('author').insertMany([
    { _id: 1, name: 'ann' },
    { _id: 2, name: 'bob', joined_at: new Date('2020-01-01T00:00:00Z') },
  ]);
  await db.collection('post').insertMany([{ _id: 'p1', author: 1 }]);
  await db.collection('post').createIndex({ author: 1 }, { name: 'author_link' });
  await db.collection('legacy').insertMany([{ _id: 1, kept: true }]);
  await db.collection('trash').insertMany([{ _id: 1 }]);
}

async function expectEveryStepApplied(db: MongoDbLike): Promise<void> {
  expect(await docs(db, 'story')).toEqual([
    // Not a model of this service: the value is stored as it is given.
    // A datetime become a date keeps its date in UTC, a date become a datetime is its midnight, a time its time of day.
    {
      _id: 1,
      title: 'a',
      summary: 'first',
      subtitle: '2026-01-02T03:04:05Z',
      at: '2027-06-01',
      day: new Date('2027-06-02T00:00:00Z'),
      clock: '08:30:00',
      founded: '1900',
    },
    { _id: 2, title: 'b', subtitle: '2026-01-02T03:04:05Z', at: null },
    { _id: 3, title: 'c', subtitle: 'kept' },
  ]);
  // author.joined_at is a datetime of the model: a BSON date, as the repositories store it.
  expect(await docs(db, 'author')).toEqual([
    { _id: 1, name: 'ann', joined_at: new Date('2026-01-02T03:04:05Z') },
    { _id: 2, name: 'bob', joined_at: new Date('2020-01-01T00:00:00Z') },
  ]);
  expect(await indexNames(db, 'story')).toEqual(['_id_', 'title_unique']);
  expect((await db.collection('story').listIndexes().toArray()).find((i) => i.name === 'title_unique')).toMatchObject({
    key: { title: 1 },
    unique: true,
    sparse: true,
  });
  // The link index became unique: MongoDB keeps one index per key, so the other went.
  expect(await indexNames(db, 'post')).toEqual(['_id_', 'author_unique']);
  // An index the schema asks for (`"index": true`) is named apart from a link's.
  expect(await indexNames(db, 'author')).toEqual(['_id_', 'name_svc_index']);
  const names = await collectionNames(db);
  expect(names).toEqual(expect.arrayContaining(['archive', 'story', 'author', 'post']));
  expect(names).not.toEqual(expect.arrayContaining(['legacy']));
  expect(names).not.toContain('trash');
  expect(names).not.toContain('elsewhere');
  expect(await docs(db, 'archive')).toEqual([{ _id: 1, kept: true }]);
}

describe('the MongoDB migration runner', () => {
  it('applies every kind of step, records the migration, and does nothing the second time', async () => {
    await onMongo('mongo-steps', async (db) => {
      await seedMongo(db);
      expect(await mongo.migrateMongo(db, mongo.models, [mongoOnly('0001_initial', []), everyStep])).toEqual([
        '0001_initial',
        '0002_every_step',
      ]);
      await expectEveryStepApplied(db);
      const record = await db.collection('svc_migrations').findOne({ _id: '0002_every_step' });
      expect(record).toMatchObject({ checksum: sha256(JSON.stringify(everyStep.mongodb)) });
      expect(record!['applied_at']).toBeInstanceOf(Date);
      expect(await db.collection('svc_migrations').findOne({ _id: 'lock' })).toBeNull();
      expect(await mongo.migrateMongo(db, mongo.models, [mongoOnly('0001_initial', []), everyStep])).toEqual([]);
    });
  });

  // `$rename` writes over a field that has the new name, and a collection with documents cannot be
  // renamed onto: a probe's two fields swapped by `renamed_from` lost one's values.
  it('applies planned renames without overwriting: two fields and two models swapped, a field renamed onto a dropped one', async () => {
    const { diff } = storageChanges(
      {
        people: { id: pk, first: text(), last: text(), nick: text(), alias: text() },
        cats: { id: pk, name: text() },
        dogs: { id: pk, name: text() },
      },
      {
        people: {
          id: pk,
          first: text({ renamed_from: 'last' }),
          last: text({ renamed_from: 'first' }),
          nick: text({ renamed_from: 'alias' }),
        },
        cats: { _renamed_from: 'Dog', id: pk, name: text() },
        dogs: { _renamed_from: 'Cat', id: pk, name: text() },
      },
    );
    const steps = mongoSteps(diff.changes);
    await onMongo('mongo-swaps', async (db) => {
      await db.collection('person').insertMany([
        { _id: 1, first: 'Ada', last: 'Lovelace', nick: 'dropped', alias: 'Countess' },
        { _id: 2, first: 'Alan' },
      ]);
      await db.collection('cat').insertMany([{ _id: 1, name: 'Tom' }]);
      await db.collection('dog').insertMany([{ _id: 1, name: 'Rex' }]);
      const migrations = [mongoOnly('0001_initial', []), mongoOnly('0002_swaps', steps)];
      expect(await mongo.migrateMongo(db, mongo.models, migrations)).toEqual(['0001_initial', '0002_swaps']);
      // Without the search words, which follow the fields' new names (`firstlovelace`).
      const people = (await docs(db, 'person')).map(({ _search: _words, ...person }) => person);
      expect(people).toEqual([
        { _id: 1, first: 'Lovelace', last: 'Ada', nick: 'Countess' },
        { _id: 2, last: 'Alan' },
      ]);
      expect(await docs(db, 'cat')).toEqual([{ _id: 1, name: 'Rex' }]);
      expect(await docs(db, 'dog')).toEqual([{ _id: 1, name: 'Tom' }]);
      expect((await collectionNames(db)).filter((name) => name.startsWith('svc_renaming'))).toEqual([]);
    });
  });

  it('renames a field in the retained events: the object, the object as it was, and among the changed', async () => {
    await onMongo('mongo-event-fields', async (db) => {
      const data = {
        pk: '1',
        object: { id: 1, paid_at: 'now', status: 'paid' },
        previous: { id: 1, paid_at: null, status: 'open' },
        changed: ['status', 'paid_at'],
      };
      await db.collection('svc_events').insertMany([
        { _id: 1, model: 'Invoice', type: 'Invoice.update', data },
        { _id: 2, model: 'Receipt', type: 'Receipt.update', data },
      ]);
      const renaming = mongoOnly('0002_rename', [
        { op: 'renameEventField', model: 'Invoice', from: 'paid_at', to: 'settled_at' },
      ]);
      await mongo.migrateMongo(db, mongo.models, [mongoOnly('0001_initial', []), renaming]);
      const [invoice, receipt] = await docs(db, 'svc_events');
      expect(invoice!['data']).toEqual({
        pk: '1',
        object: { id: 1, settled_at: 'now', status: 'paid' },
        previous: { id: 1, settled_at: null, status: 'open' },
        changed: ['status', 'settled_at'],
      });
      // Another model's field of that name is its own.
      expect(receipt!['data']).toEqual(data);
    });
  });

  it('drops a dropped field from the retained events: the object, the object as it was, and the changed', async () => {
    await onMongo('mongo-event-drops', async (db) => {
      const data = {
        pk: '1',
        object: { id: 1, notes: 'private', status: 'paid' },
        previous: { id: 1, notes: null, status: 'open' },
        changed: ['notes', 'status'],
      };
      await db.collection('svc_events').insertMany([
        { _id: 1, model: 'Invoice', type: 'Invoice.update', data },
        { _id: 2, model: 'Invoice', type: 'Invoice.create', data: { pk: '2', object: { id: 2, notes: 'x' } } },
        { _id: 3, model: 'Receipt', type: 'Receipt.update', data },
      ]);
      const dropping = mongoOnly('0002_drop', [{ op: 'dropEventField', model: 'Invoice', field: 'notes' }]);
      await mongo.migrateMongo(db, mongo.models, [mongoOnly('0001_initial', []), dropping]);
      const [update, create, receipt] = await docs(db, 'svc_events');
      expect(update!['data']).toEqual({
        pk: '1',
        object: { id: 1, status: 'paid' },
        previous: { id: 1, status: 'open' },
        changed: ['status'],
      });
      expect(create!['data']).toEqual({ pk: '2', object: { id: 2 } });
      expect(receipt!['data']).toEqual(data);
    });
  });

  it('steps are idempotent: a migration that stopped before it was recorded is applied again to the same result', async () => {
    await onMongo('mongo-idempotent', async (db) => {
      await seedMongo(db);
      await mongo.migrateMongo(db, mongo.models, [everyStep]);
      await db.collection('svc_migrations').deleteOne({ _id: '0002_every_step' });
      expect(await mongo.migrateMongo(db, mongo.models, [everyStep])).toEqual(['0002_every_step']);
      await expectEveryStepApplied(db);
    });
  });

  it('stops at a field become required while a document has no value for it, naming it, and goes on once each has one', async () => {
    await onMongo('mongo-require', async (db) => {
      await db.collection('story').insertMany([{ _id: 1, sku: 'A1' }, { _id: 2, sku: null }, { _id: 3 }]);
      const required = mongoOnly('0002_required', [
        { op: 'requireValues', collection: 'story', field: 'sku' },
        { op: 'renameField', collection: 'story', from: 'sku', to: 'code' },
      ]);
      await expect(mongo.migrateMongo(db, mongo.models, [required])).rejects.toThrow(
        'story.sku: a stored document has no value, and the field is now required (migration 0002_required)',
      );
      // Checked first: nothing else of the migration ran.
      expect(await docs(db, 'story')).toEqual([{ _id: 1, sku: 'A1' }, { _id: 2, sku: null }, { _id: 3 }]);
      for (const _id of [2, 3]) await db.collection('story').deleteOne({ _id });
      await db.collection('story').insertMany([
        { _id: 2, sku: 'B2' },
        { _id: 3, sku: 'B2' },
      ]);
      expect(await mongo.migrateMongo(db, mongo.models, [required])).toEqual(['0002_required']);
      expect((await docs(db, 'story')).map((d) => d['code'])).toEqual(['A1', 'B2', 'B2']);
    });
  });

  it('refuses a changed migration, and one the code does not know', async () => {
    await onMongo('mongo-refuses', async (db) => {
      const first = mongoOnly('0002_index', [
        { op: 'createIndex', collection: 'story', field: 'title', unique: false },
      ]);
      await mongo.migrateMongo(db, mongo.models, [first]);
      const changed = mongoOnly('0002_index', [
        { op: 'createIndex', collection: 'story', field: 'title', unique: true },
      ]);
      await expect(mongo.migrateMongo(db, mongo.models, [changed])).rejects.toThrow(
        'migration 0002_index was applied to this database but has changed since',
      );
      await expect(mongo.migrateMongo(db, mongo.models, [])).rejects.toThrow(
        'the database was migrated by a newer version of this service (migration 0002_index is unknown here); deploy that version or restore a backup',
      );
      expect(await indexNames(db, 'story')).toEqual(['_id_', 'title_link']);
    });
  });

  it('refuses a unique index over values that are not unique, naming it', async () => {
    await onMongo('mongo-unique', async (db) => {
      await db.collection('story').insertMany([
        { _id: 1, title: 'same' },
        { _id: 2, title: 'same' },
      ]);
      const unique = mongoOnly('0002_unique_title', [
        { op: 'createIndex', collection: 'story', field: 'title', unique: true },
      ]);
      await expect(mongo.migrateMongo(db, mongo.models, [unique])).rejects.toThrow(
        /migration 0002_unique_title cannot create the index title_unique of story: .* \(values that must be unique are not\)/,
      );
      expect(await db.collection('svc_migrations').findOne({ _id: '0002_unique_title' })).toBeNull();
    });
  });

  it('migrates one instance at a time: waits for the lock document, takes over an expired one, and five at once apply a migration once', async () => {
    await onMongo('mongo-lock', async (db, url) => {
      const migration = mongoOnly('0002_rename', [{ op: 'renameField', collection: 'story', from: 'old', to: 'new' }]);
      await db.collection('story').insertOne({ _id: 1, old: 'x' });
      await db
        .collection('svc_migrations')
        .insertOne({ _id: 'lock', owner: 'another instance', expires_at: new Date(Date.now() + 60_000) });
      let done = false;
      const waiting = mongo.migrateMongo(db, mongo.models, [migration]).then((names) => ((done = true), names));
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(done).toBe(false);
      expect(await docs(db, 'story')).toEqual([{ _id: 1, old: 'x' }]);
      await db.collection('svc_migrations').deleteOne({ _id: 'lock' });
      expect(await waiting).toEqual(['0002_rename']);
      expect(await docs(db, 'story')).toEqual([{ _id: 1, new: 'x' }]);

      // A holder that crashed: its lease has run out, the lock is taken over at once.
      await db
        .collection('svc_migrations')
        .insertOne({ _id: 'lock', owner: 'crashed', expires_at: new Date(Date.now() - 1_000) });
      const next = mongoOnly('0003_unset', [{ op: 'unsetField', collection: 'story', field: 'new' }]);
      const started = Date.now();
      expect(await mongo.migrateMongo(db, mongo.models, [migration, next])).toEqual(['0003_unset']);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(await db.collection('svc_migrations').findOne({ _id: 'lock' })).toBeNull();

      // Five clients at once: each applies what it finds pending under the lock; the migration is recorded once.
      const last = mongoOnly('0004_set', [{ op: 'setMissing', collection: 'story', field: 'n', value: 1 }]);
      const clients = [1, 2, 3, 4, 5].map(() => new mongo.MongoClient(url));
      try {
        await Promise.all(clients.map((c) => c.connect()));
        const results = await Promise.all(
          clients.map((c) => mongo.migrateMongo(c.db(), mongo.models, [migration, next, last])),
        );
        expect(results.flat()).toEqual(['0004_set']);
      } finally {
        await Promise.all(clients.map((c) => c.close()));
      }
      expect((await docs(db, 'svc_migrations')).map((r) => r['_id'])).toEqual([
        '0002_rename',
        '0003_unset',
        '0004_set',
      ]);
    });
  });

  it('npm run migrate applies the MongoDB steps before the indexes; --dry-run prints them as JSON and changes nothing', async () => {
    await onMongo('mongo-cli', async (db, url) => {
      const run = (...args: string[]) =>
        execa('node', ['dist/db/migrate.js', ...args], {
          cwd: dir,
          env: { SVC_CONFIG: join(dir, 'none.ini'), SVC_ENGINE: 'svc_mongodb', SVC_MONGODB_URL: url },
          reject: false,
          all: true,
          timeout: 60_000,
        });
      await db.collection('legacy_story').insertOne({ _id: 1, name: 'old' });
      const dry = await run('--dry-run');
      expect(dry.exitCode, dry.all).toBe(0);
      expect(dry.stdout).toContain('dry run: 2 migration(s) to apply, none applied');
      // The generated first migration says what it is (its summary), then that it has no MongoDB steps.
      expect(dry.stdout).toContain(
        '-- 0001_initial\n--   every table of the API\n-- (nothing to run on this database; it would only be recorded)',
      );
      expect(dry.stdout).toContain(`-- 0002_archive_stories\n${JSON.stringify(archiveStories.mongodb, null, 2)}`);
      expect(await collectionNames(db)).toEqual(['legacy_story']);
      const migrated = await run();
      expect(migrated.exitCode, migrated.all).toBe(0);
      expect(migrated.stdout).toContain('applied 0001_initial, 0002_archive_stories');
      expect(migrated.stdout).toContain('the MongoDB indexes are in place');
      expect(await docs(db, 'story_archive')).toEqual([{ _id: 1, name: 'old' }]);
      expect(await indexNames(db, 'author')).toContain('email_unique');
      expect((await docs(db, 'svc_migrations')).map((r) => r['_id'])).toEqual(['0001_initial', '0002_archive_stories']);
      expect((await run('--dry-run')).stdout).toContain('the database is up to date');
    });
  });
});
