/**
 * Schema evolution on real databases, over HTTP: fixtures/evolution/v1…v7, one
 * API (Library: Author, Book, Publisher→Imprint, Profile) through seven versions, generated one
 * after the other into one out-dir as a user would (each version compiled once), then run on
 * SQLite, PostgreSQL and MongoDB, version after version on one database: after every
 * regeneration and restart the service applied exactly its migrations and logged no trouble,
 * every row written at an earlier version is still there with its values (as the new version
 * names them), the migration filled what it should in old rows, what is new works, new rows are
 * written, and no key is given twice (not after a SQLite table rebuild, nor a renamed MongoDB
 * collection), and full-text search finds every row by the words of its text fields as they
 * are named at each version, and Book.isbn keeps the index its schema asks for (`"index": true`:
 * plain at v2, the unique one at v3, plain again from v4). A second database left at v2 is started with v4 directly: both migrations in that
 * one start. The CLI side: `--check` fails while a migration is missing, data loss is refused
 * without --allow-data-loss. test/cli/evolution.test.ts has the golden migrations
 * (snapshots/evolution/).
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { words } from '../../runtime/src/lib/search.js';
import { runCli, type CliRun } from '../support/cli.js';
import { ENGINES, testDatabase, type Engine, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api, type Reply } from '../support/http.js';
import { repoRoot } from '../support/paths.js';
import { linkDependencies, tool } from '../support/project.js';
import { startService } from '../support/server.js';

const VERSIONS = [1, 2, 3, 4, 5, 6, 7] as const;
/** Versions that drop data: generated with --allow-data-loss. */
const LOSSY = new Set([6, 7]);
const BASE = '/v1';
const WORK = join(repoRoot, '.tmp', 'e2e-evolution');
const OUT = join(WORK, 'out');
const buildOf = (version: number) => join(WORK, `build-v${version}`);
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

// --- generating the seven versions ----------------------------------------------------------------

interface Generation {
  /** `--check` with this version's API before its migration was written (from v2). */
  readonly checkBefore?: CliRun;
  /** A lossy version generated without --allow-data-loss, and whether the out-dir stayed byte for byte. */
  readonly refused?: CliRun;
  readonly untouchedByRefusal?: boolean;
  readonly checkAfter: CliRun;
  /** The migration modules this version added. */
  readonly added: readonly string[];
}

const generations = new Map<number, Generation>();

const svcgen = (...flags: string[]) => runCli(['generate', 'api/api.raml', '-o', 'out', ...flags], WORK);

/** Every file of `dir`, path → content. */
function tree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      out.set(
        join(entry.parentPath, entry.name).slice(dir.length + 1),
        readFileSync(join(entry.parentPath, entry.name), 'utf8'),
      );
  }
  return out;
}

const migrationFiles = () =>
  existsSync(join(OUT, 'src/db/migrations')) ? readdirSync(join(OUT, 'src/db/migrations')).sort() : [];

/** Puts `version`'s API in work/api, generates it into work/out, and copies the project to build-vN. */
async function generate(version: number): Promise<Generation> {
  rmSync(join(WORK, 'api'), { recursive: true, force: true });
  cpSync(join(repoRoot, 'fixtures/evolution', `v${version}`), join(WORK, 'api'), { recursive: true });
  const before = migrationFiles();
  const checkBefore = version > 1 ? await svcgen('--check') : undefined;
  let refused: CliRun | undefined;
  let untouchedByRefusal: boolean | undefined;
  if (LOSSY.has(version)) {
    const previous = tree(OUT);
    refused = await svcgen();
    untouchedByRefusal = JSON.stringify([...tree(OUT)]) === JSON.stringify([...previous]);
  }
  // The versions change the API for its clients too (routes and fields go): said, and allowed.
  const run = await svcgen(...(LOSSY.has(version) ? ['--allow-data-loss'] : []), '--allow-breaking');
  if (run.code !== 0) throw new Error(`svcgen generate v${version} failed (${run.code}):\n${run.stderr}`);
  const checkAfter = await svcgen('--check');
  cpSync(OUT, buildOf(version), { recursive: true, filter: (source) => !source.includes('node_modules') });
  const added = migrationFiles().filter((m) => !before.includes(m));
  return {
    ...(checkBefore ? { checkBefore } : {}),
    ...(refused ? { refused, untouchedByRefusal } : {}),
    checkAfter,
    added,
  };
}

async function compile(version: number): Promise<void> {
  const dir = buildOf(version);
  await linkDependencies(dir);
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  if (build.exitCode !== 0) throw new Error(`the build of v${version} failed:\n${build.all}`);
}

beforeAll(async () => {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  for (const version of VERSIONS) generations.set(version, await generate(version));
  for (const version of VERSIONS) await compile(version);
}, 600_000);

/** The migrations (`0001_initial` …) in order, as the last version has them. */
const migrationNames = () => [...generations.values()].flatMap((g) => g.added).map((file) => file.replace(/\.ts$/, ''));

describe('regenerating the library API version after version', () => {
  it('each version adds exactly one migration', () => {
    expect(VERSIONS.map((v) => generations.get(v)!.added.length)).toEqual(VERSIONS.map(() => 1));
    expect(migrationNames().map((name) => name.slice(0, 4))).toEqual([
      '0001',
      '0002',
      '0003',
      '0004',
      '0005',
      '0006',
      '0007',
    ]);
  });

  it('--check fails while a version’s migration is missing, naming it, and passes once it is written', () => {
    for (const version of VERSIONS.slice(1)) {
      const { checkBefore, added } = generations.get(version)!;
      expect(checkBefore!.code, `v${version}`).toBe(1);
      if (!LOSSY.has(version)) expect(checkBefore!.stdout, `v${version}`).toContain(`src/db/migrations/${added[0]}`);
    }
    for (const version of VERSIONS)
      expect(
        generations.get(version)!.checkAfter.code,
        `v${version}: ${generations.get(version)!.checkAfter.stdout}`,
      ).toBe(0);
  });

  it('a version that drops data is refused without --allow-data-loss (SVC3101) and writes nothing', () => {
    const v6 = generations.get(6)!;
    expect(v6.refused!.code).toBe(1);
    expect(v6.refused!.stderr).toContain('error SVC3101: field Author.nickname is removed');
    expect(v6.refused!.stderr).toContain('error SVC3101: model Profile is removed');
    const v7 = generations.get(7)!;
    expect(v7.refused!.code).toBe(1);
    expect(v7.refused!.stderr).toContain('error SVC3101: field Author.name narrows');
    expect([v6.untouchedByRefusal, v7.untouchedByRefusal]).toEqual([true, true]);
  });
});

// --- what the database holds, as each version shows it -----------------------------------------

interface AuthorRow {
  readonly id: number;
  name: string;
  readonly bio: string | null;
  readonly nickname: string | null;
  rating: number | null;
  /** Set when written at v7; older authors get the migration's time. */
  readonly joinedAt?: string;
}

interface BookRow {
  readonly id: number;
  readonly title: string;
  pages: number | null;
  author: number | null;
  isbn: string | null;
  /** Undefined when written before v2: the migration fills the default (true). */
  readonly inPrint?: boolean;
  publisher: number | null;
  /** Undefined when written before v3: the migration fills the default. */
  readonly format?: string;
}

interface ProfileRow {
  readonly id: number;
  readonly website: string;
  readonly author: number;
}

type Row = Record<string, unknown>;

/** What the tests wrote, to check against what the service answers. */
class Library {
  readonly authors = new Map<number, AuthorRow>();
  readonly books = new Map<number, BookRow>();
  readonly publishers = new Map<number, string>();
  readonly profiles = new Map<number, ProfileRow>();
  /** The highest key ever given, per model: a key is never given twice, not even across a table rebuild. */
  readonly highest = new Map<string, number>();

  booksOf(link: 'author' | 'publisher', id: number): number[] {
    return [...this.books.values()].filter((b) => b[link] === id).map((b) => b.id);
  }
}

const byId = (a: number, b: number) => a - b;

/** Relationship lists in key order, so that rows compare whatever order the engine lists them in. */
function normalized(row: Row): Row {
  return Array.isArray(row['books']) ? { ...row, books: [...(row['books'] as number[])].sort(byId) } : row;
}

function authorAt(lib: Library, a: AuthorRow, v: number): Row {
  const profile = [...lib.profiles.values()].find((p) => p.author === a.id);
  return {
    id: a.id,
    name: a.name,
    [v >= 4 ? 'biography' : 'bio']: a.bio,
    ...(v < 6 ? { nickname: a.nickname } : {}),
    ...(v >= 2 ? { rating: a.rating } : {}),
    books: lib.booksOf('author', a.id).sort(byId),
    ...(v === 5 ? { profile: profile?.id ?? null } : {}),
    ...(v >= 7 ? { joined_at: a.joinedAt ?? expect.stringMatching(ISO_TIME) } : {}),
  };
}

function bookAt(b: BookRow, v: number): Row {
  const link = v >= 4 ? 'imprint' : 'publisher';
  return {
    id: b.id,
    title: b.title,
    // v5 made pages required: the migration gave books without pages 0.
    pages: v >= 5 ? (b.pages ?? 0) : b.pages,
    author: b.author,
    author_id: b.author,
    ...(v >= 2 ? { isbn: b.isbn, in_print: b.inPrint ?? true, [link]: b.publisher, [`${link}_id`]: b.publisher } : {}),
    ...(v >= 3 ? { format: b.format ?? 'paperback' } : {}),
  };
}

/** Fields a version no longer has: they must not be answered. */
const goneFrom = (v: number) => ({
  author: [...(v >= 4 ? ['bio'] : []), ...(v >= 6 ? ['nickname', 'profile'] : []), ...(v < 2 ? ['rating'] : [])],
  book: [...(v >= 4 ? ['publisher', 'publisher_id'] : []), ...(v < 3 ? ['format'] : [])],
});

/** A service of one version on one database, with what was written so far. */
interface Session {
  readonly api: Api;
  readonly v: number;
  readonly lib: Library;
}

async function listAll(api: Api, path: string): Promise<Row[]> {
  const reply = await api('GET', `${path}?_sort=id&_limit=100`);
  expect(reply.status, `GET ${path}: ${reply.text}`).toBe(200);
  expect(reply.body.total).toBe(reply.body.data.length);
  return (reply.body.data as Row[]).map(normalized);
}

/** Every row written so far is there, with its values, as version `v` names them; nothing else is. */
async function expectLibrary({ api, v, lib }: Session): Promise<void> {
  const authors = await listAll(api, '/authors');
  expect(authors).toEqual(
    [...lib.authors.values()].sort((a, b) => a.id - b.id).map((a) => expect.objectContaining(authorAt(lib, a, v))),
  );
  const books = await listAll(api, '/books');
  expect(books).toEqual(
    [...lib.books.values()].sort((a, b) => a.id - b.id).map((b) => expect.objectContaining(bookAt(b, v))),
  );
  const gone = goneFrom(v);
  expect(authors.flatMap((a) => gone.author.filter((f) => f in a))).toEqual([]);
  expect(books.flatMap((b) => gone.book.filter((f) => f in b))).toEqual([]);
  if (v >= 2) {
    const publishers = await listAll(api, v >= 4 ? '/imprints' : '/publishers');
    const expected = [...lib.publishers]
      .sort(([a], [b]) => a - b)
      .map(([id, name]) => ({ id, name, books: lib.booksOf('publisher', id).sort(byId) }));
    expect(publishers).toEqual(expected.map((p) => expect.objectContaining(p)));
  }
  if (v === 5) {
    const profiles = await listAll(api, '/profiles');
    expect(profiles).toEqual(
      [...lib.profiles.values()].map((p) =>
        expect.objectContaining({ id: p.id, website: p.website, author: p.author }),
      ),
    );
  }
  await expectSearch({ api, v, lib });
}

/**
 * Full-text search follows the schema: each row is found by the first word of each text field,
 * under the field's name at this version (a renamed field, a renamed model, a field added since),
 * and exactly the rows whose field has that word are; a removed field cannot be searched.
 */
async function expectSearch({ api, v, lib }: Session): Promise<void> {
  const texts: [path: string, id: number, field: string, text: string | null][] = [];
  for (const a of lib.authors.values()) {
    texts.push(['/authors', a.id, 'name', a.name], ['/authors', a.id, v >= 4 ? 'biography' : 'bio', a.bio]);
    if (v < 6) texts.push(['/authors', a.id, 'nickname', a.nickname]);
  }
  for (const b of lib.books.values()) {
    texts.push(['/books', b.id, 'title', b.title]);
    if (v >= 2) texts.push(['/books', b.id, 'isbn', b.isbn]);
  }
  if (v >= 2)
    for (const [id, name] of lib.publishers) texts.push([v >= 4 ? '/imprints' : '/publishers', id, 'name', name]);
  for (const [path, , field, text] of texts) {
    const word = text === null ? undefined : words(text)[0];
    if (word === undefined) continue;
    const reply = await api('GET', `${path}?q=${encodeURIComponent(word)}&_search_fields=${field}&_limit=100&_sort=id`);
    expect(reply.status, `${path} ${field}=${word}: ${reply.text}`).toBe(200);
    const expected = texts
      .filter(([p, , f, t]) => p === path && f === field && t !== null && words(t).includes(word))
      .map(([, i]) => i);
    expect(
      (reply.body.data as Row[]).map((r) => r['id']),
      `${path} q=${word} in ${field}`,
    ).toEqual([...new Set(expected)].sort((x, y) => x - y));
  }
  if (v >= 6) expect((await api('GET', '/authors?q=ada&_search_fields=nickname')).status).toBe(400);
}

/** The reply was a 201; its key is one never given before for `model`. */
function created(lib: Library, model: string, reply: Reply): number {
  expect(reply.status, reply.text).toBe(201);
  const id = reply.body.id as number;
  expect(id, `a ${model} key given twice`).toBeGreaterThan(lib.highest.get(model) ?? 0);
  lib.highest.set(model, id);
  return id;
}

type NewAuthor = Omit<AuthorRow, 'id' | 'joinedAt'>;
type NewBook = Partial<Omit<BookRow, 'id' | 'title'>> & { readonly title: string };

async function addAuthor({ api, v, lib }: Session, author: NewAuthor): Promise<number> {
  const body: Row = { name: author.name, [v >= 4 ? 'biography' : 'bio']: author.bio };
  if (author.nickname !== null) body['nickname'] = author.nickname;
  if (author.rating !== null) body['rating'] = author.rating;
  const reply = await api('POST', '/authors', body);
  const id = created(lib, 'author', reply);
  const row: AuthorRow = { ...author, id, ...(v >= 7 ? { joinedAt: reply.body.joined_at } : {}) };
  lib.authors.set(id, row);
  expect(normalized(reply.body)).toMatchObject(authorAt(lib, row, v));
  return id;
}

async function addBook({ api, v, lib }: Session, book: NewBook): Promise<number> {
  const row = { pages: null, author: null, isbn: null, publisher: null, ...book };
  const body: Row = { title: row.title };
  if (row.pages !== null) body['pages'] = row.pages;
  if (row.author !== null) body['author'] = row.author;
  if (row.isbn !== null) body['isbn'] = row.isbn;
  if (row.inPrint !== undefined) body['in_print'] = row.inPrint;
  if (row.publisher !== null) body[v >= 4 ? 'imprint' : 'publisher'] = row.publisher;
  if (row.format !== undefined) body['format'] = row.format;
  const reply = await api('POST', '/books', body);
  const id = created(lib, 'book', reply);
  lib.books.set(id, { ...row, id });
  expect(reply.body).toMatchObject(bookAt({ ...row, id }, v));
  return id;
}

async function addPublisher({ api, v, lib }: Session, name: string): Promise<number> {
  const id = created(lib, 'publisher', await api('POST', v >= 4 ? '/imprints' : '/publishers', { name }));
  lib.publishers.set(id, name);
  return id;
}

async function patch(api: Api, path: string, body: Row): Promise<Reply> {
  const reply = await api('PATCH', path, body);
  expect(reply.status, `PATCH ${path}: ${reply.text}`).toBe(200);
  return reply;
}

async function remove(api: Api, path: string): Promise<void> {
  const reply = await api('DELETE', path);
  expect(reply.status, `DELETE ${path}: ${reply.text}`).toBe(200);
}

// --- the databases ------------------------------------------------------------------------------

const projectRequire = () => createRequire(join(buildOf(1), 'node_modules', 'noop.js'));

interface SqliteDatabase {
  prepare(sql: string): { all(): Row[] };
  close(): void;
}

/** Rows of `sql` on a SQL test database, read with the generated project's drivers. */
async function query(engine: 'sqlite' | 'postgres', url: string, sql: string): Promise<Row[]> {
  if (engine === 'sqlite') {
    const Database = projectRequire()('better-sqlite3') as new (file: string, options: object) => SqliteDatabase;
    const db = new Database(url.slice('sqlite:'.length), { readonly: true });
    try {
      return db.prepare(sql).all();
    } finally {
      db.close();
    }
  }
  type Client = { connect(): Promise<void>; query(sql: string): Promise<{ rows: Row[] }>; end(): Promise<void> };
  const pg = projectRequire()('pg') as { Client: new (options: { connectionString: string }) => Client };
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/** The names of the migrations the database records as applied, in order. */
async function appliedMigrations(engine: Engine, url: string): Promise<string[]> {
  if (engine !== 'mongodb')
    return (await query(engine, url, 'select name from svc_migrations order by name')).map((r) => String(r['name']));
  const client = new MongoClient(url);
  try {
    const records = await client
      .db()
      .collection<{ _id: string }>('svc_migrations')
      .find({ _id: { $ne: 'lock' } })
      .toArray();
    return records.map((r) => r._id).sort();
  } finally {
    await client.close();
  }
}

/**
 * The indexes on Book.isbn alone, as `unique` or `plain`: asked for by `"index": true` from v2,
 * replaced by the unique one at v3, and back at v4 when it is no longer unique.
 */
async function isbnIndexes(engine: Engine, url: string): Promise<string[]> {
  const kind = (unique: unknown) => (unique ? 'unique' : 'plain');
  if (engine === 'sqlite') {
    const rows = await query(
      engine,
      url,
      `select l."unique" as u from pragma_index_list('book') as l where (select group_concat(i.name) from pragma_index_info(l.name) as i) = 'isbn'`,
    );
    return rows.map((r) => kind(r['u'])).sort();
  }
  if (engine === 'postgres') {
    const rows = await query(engine, url, `select indexdef from pg_indexes where tablename = 'book'`);
    const defs = rows.map((r) => String(r['indexdef'])).filter((d) => d.endsWith('(isbn)'));
    return defs.map((d) => kind(d.startsWith('CREATE UNIQUE'))).sort();
  }
  const client = new MongoClient(url);
  try {
    const indexes = await client.db().collection('book').listIndexes().toArray();
    return indexes
      .filter((i) => JSON.stringify(i['key']) === JSON.stringify({ isbn: 1 }))
      .map((i) => kind(i['unique']))
      .sort();
  } finally {
    await client.close();
  }
}

/**
 * The retained events (svc_events) of objects of `model`, in order: their type, the object's key,
 * and its fields as stored: the object (`{ pk, object }`), or on PostgreSQL for a write that
 * appended its event in its own statement, the row's columns and the keys of its links
 * (`{ pk, row, links }`, runtime/src/lib/sql/recorded-writes.ts).
 */
async function retainedEvents(
  engine: Engine,
  url: string,
  model: string,
): Promise<{ type: string; pk: string; fields: Record<string, unknown> }[]> {
  type Data = { pk: string; object?: Record<string, unknown>; row?: Record<string, unknown>; links?: object };
  const event = (type: unknown, data: Data) => ({
    type: String(type),
    pk: data.pk,
    fields: data.object ?? { ...data.row, ...data.links },
  });
  if (engine !== 'mongodb') {
    const order = engine === 'postgres' ? 'pos' : 'seq';
    const rows = await query(
      engine,
      url,
      `select type, data from svc_events where model = '${model}' order by ${order}`,
    );
    return rows.map((r) => event(r['type'], typeof r['data'] === 'string' ? JSON.parse(r['data']) : r['data']));
  }
  const client = new MongoClient(url);
  try {
    const found = await client.db().collection('svc_events').find({ model }).sort({ _id: 1 }).toArray();
    return found.map((d) => event(d['type'], d['data'] as Data));
  } finally {
    await client.close();
  }
}

/** SQLite: no link to a row that is not there, and a sound file, after the migrations. */
async function expectSqliteIntact(engine: Engine, url: string): Promise<void> {
  if (engine !== 'sqlite') return;
  expect(await query(engine, url, 'pragma foreign_key_check')).toEqual([]);
  expect(await query(engine, url, 'pragma integrity_check')).toEqual([{ integrity_check: 'ok' }]);
  // FTS5 compares each search index with its table (it throws on a difference): the migrations'
  // rebuilds and renames left them in step.
  const Database = projectRequire()('better-sqlite3') as new (file: string) => {
    exec(sql: string): void;
    close(): void;
  };
  const db = new Database(url.slice('sqlite:'.length));
  try {
    for (const table of ['author', 'book', 'imprint'])
      db.exec(`insert into svc_search_${table} (svc_search_${table}, rank) values ('integrity-check', 1);`);
  } finally {
    db.close();
  }
}

/** Log lines that say something went wrong (pino level 40 and up), or that mention a migration. */
function troubles(output: string, engine: Engine): string[] {
  return output.split('\n').filter((line) => {
    // The one info line of a start that applied migrations says which: not a trouble.
    if (/^\{"level":30,.*"msg":"applied \d+ migration\(s\): /.test(line)) return false;
    if (/migrat/i.test(line)) return true;
    const level = /^\{"level":(\d+)/.exec(line)?.[1];
    // Against a standalone MongoDB (MONGO_URL), the service warns that it runs without transactions.
    return level !== undefined && Number(level) >= 40 && !(engine === 'mongodb' && /runs no transactions/.test(line));
  });
}

/**
 * Starts version `v` on `database`, checks that it applied exactly the migrations up to its own
 * and logged no trouble, runs `work`, and stops it.
 */
async function atVersion(
  engine: Engine,
  database: TestDatabase,
  lib: Library,
  v: number,
  work: (s: Session) => Promise<void>,
): Promise<void> {
  const before = await appliedMigrations(engine, database.url).catch((): string[] => []);
  const service = await startService(buildOf(v), database.env, BASE);
  try {
    expect(await appliedMigrations(engine, database.url)).toEqual(migrationNames().slice(0, v));
    // A start that applied migrations says which, in one line.
    const applied = migrationNames()
      .slice(0, v)
      .filter((name) => !before.includes(name));
    const said = service
      .output()
      .split('\n')
      .filter((line) => line.includes('migration(s): '));
    expect(said.map((line) => /migration\(s\): ([^"]*)/.exec(line)?.[1])).toEqual(
      applied.length ? [applied.join(', ')] : [],
    );
    await work({ api: apiClient(service.origin, BASE), v, lib });
  } finally {
    const code = await service.stop();
    expect(code, service.output()).toBe(0);
    expect(troubles(service.output(), engine)).toEqual([]);
  }
}

// --- the versions on each engine ----------------------------------------------------------------

const name = (length: number) => 'Name of a certain length '.repeat(10).slice(0, length);

describe.each(ENGINES)('the library API evolving on %s', (engine) => {
  const lib = new Library();
  let database: TestDatabase;
  const at = (v: number, work: (s: Session) => Promise<void>) => atVersion(engine, database, lib, v, work);
  /** Keys of the rows the later versions look at, by a name of the test's. */
  const keys = new Map<string, number>();
  const key = (name: string) => keys.get(name) ?? expect.fail(`no row ${name} was written`);

  beforeAll(async () => {
    database = await testDatabase(engine, buildOf(1), `evolution-${engine}`);
  });

  afterAll(async () => {
    await database?.drop();
  });

  it('v1: authors and books are written', async () => {
    await at(1, async (s) => {
      keys.set(
        'ada',
        await addAuthor(s, { name: 'Ada Lovelace', bio: 'Wrote the first program', nickname: 'ada', rating: null }),
      );
      keys.set(
        'charlotte',
        await addAuthor(s, { name: 'Charlotte Brontë', bio: null, nickname: 'currer', rating: null }),
      );
      keys.set(
        'anon',
        await addAuthor(s, { name: 'Anonymous', bio: 'Line one,\n“line” two', nickname: null, rating: null }),
      );
      keys.set('notes', await addBook(s, { title: 'Notes on the Analytical Engine', author: key('ada') }));
      keys.set('eyre', await addBook(s, { title: 'Jane Eyre', pages: 532, author: key('charlotte') }));
      keys.set('beowulf', await addBook(s, { title: 'Beowulf' }));
      expect((await s.api('POST', '/authors', { name: name(51) })).status).toBe(400);
      await expectLibrary(s);
    });
  });

  it('v2: old books are in print, old authors have no rating; publishers, ratings and ISBNs are written', async () => {
    await at(2, async (s) => {
      expect(await isbnIndexes(engine, database.url)).toEqual(['plain']);
      await expectLibrary(s);
      const old = (await listAll(s.api, '/books')).filter((b) =>
        [key('notes'), key('eyre'), key('beowulf')].includes(b['id'] as number),
      );
      expect(old.map((b) => [b['in_print'], b['isbn'], b['publisher']])).toEqual([
        [true, null, null],
        [true, null, null],
        [true, null, null],
      ]);
      keys.set('penguin', await addPublisher(s, 'Penguin'));
      await patch(s.api, `/books/${key('notes')}`, { publisher: key('penguin'), isbn: '978-0-00-000001-1' });
      Object.assign(lib.books.get(key('notes'))!, { publisher: key('penguin'), isbn: '978-0-00-000001-1' });
      await patch(s.api, `/authors/${key('ada')}`, { rating: 5 });
      lib.authors.get(key('ada'))!.rating = 5;
      keys.set(
        'persuasion',
        await addBook(s, {
          title: 'Persuasion',
          author: key('charlotte'),
          isbn: '978-2',
          inPrint: false,
          publisher: key('penguin'),
        }),
      );
      keys.set('austen', await addAuthor(s, { name: 'Jane Austen', bio: 'Novelist', nickname: 'jane', rating: 4 }));
      // Not wide enough yet: a small integer, an integer, 50 characters.
      expect((await s.api('PATCH', `/authors/${key('austen')}`, { rating: 100_000 })).status).toBe(400);
      expect((await s.api('PATCH', `/books/${key('eyre')}`, { pages: 5_000_000_000 })).status).toBe(400);
      expect((await s.api('POST', '/authors', { name: name(150) })).status).toBe(400);
      // The newest rows go again: a rebuilt table (v3) must not give their keys a second time.
      const author = created(lib, 'author', await s.api('POST', '/authors', { name: 'Gone' }));
      const book = created(lib, 'book', await s.api('POST', '/books', { title: 'Gone', author }));
      await remove(s.api, `/books/${book}`);
      await remove(s.api, `/authors/${author}`);
      await expectLibrary(s);
    });
  });

  it('v3: old books are paperbacks; names, ratings and pages are wider; nicknames and ISBNs are unique', async () => {
    await at(3, async (s) => {
      expect(await isbnIndexes(engine, database.url)).toEqual(['unique']);
      await expectLibrary(s);
      const formats = (await listAll(s.api, '/books')).map((b) => b['format']);
      expect(formats).toEqual(formats.map(() => 'paperback'));
      const long = await s.api('POST', '/authors', { name: name(150), nickname: 'long' });
      const longId = created(lib, 'author', long);
      expect((await s.api('GET', `/authors/${longId}`)).body.name).toBe(name(150));
      // Shortened again, but past v1's 50 characters: v7 narrows to 120.
      await patch(s.api, `/authors/${longId}`, { name: name(110) });
      lib.authors.set(longId, { id: longId, name: name(110), bio: null, nickname: 'long', rating: null });
      expect((await s.api('POST', '/authors', { name: name(201) })).status).toBe(400);
      await patch(s.api, `/authors/${key('austen')}`, { rating: 100_000 });
      lib.authors.get(key('austen'))!.rating = 100_000;
      await patch(s.api, `/books/${key('eyre')}`, { pages: 5_000_000_000 });
      lib.books.get(key('eyre'))!.pages = 5_000_000_000;
      expect((await s.api('POST', '/authors', { name: 'Ada again', nickname: 'ada' })).status).toBe(409);
      expect((await s.api('POST', '/books', { title: 'Same ISBN', isbn: '978-0-00-000001-1' })).status).toBe(409);
      keys.set(
        'hardcover',
        await addBook(s, { title: 'Villette', author: key('charlotte'), isbn: '978-3', format: 'hardcover' }),
      );
      expect((await s.api('POST', '/books', { title: 'Not yet', format: 'ebook' })).status).toBe(400);
      // Deleting an author still leaves their books, unlinked (on delete set null) …
      const leaving = await addAuthor(s, { name: 'Leaving', bio: null, nickname: null, rating: null });
      const left = await addBook(s, { title: 'Left behind', author: leaving });
      await remove(s.api, `/authors/${leaving}`);
      lib.authors.delete(leaving);
      lib.books.get(left)!.author = null;
      // … which v4 changes (on delete cascade) for these, written before it.
      keys.set(
        'cascade',
        await addAuthor(s, { name: 'Cascading', bio: 'Goes with the books', nickname: 'cascade', rating: 1 }),
      );
      keys.set('cascade1', await addBook(s, { title: 'Cascade one', author: key('cascade') }));
      keys.set(
        'cascade2',
        await addBook(s, { title: 'Cascade two', author: key('cascade'), publisher: key('penguin') }),
      );
      await expectLibrary(s);
    });
  });

  it('v4: bio is biography and publishers are imprints, with their data; deleting an author deletes their books; ISBNs may repeat', async () => {
    await at(4, async (s) => {
      expect(await isbnIndexes(engine, database.url)).toEqual(['plain']);
      await expectLibrary(s);
      expect((await s.api('GET', `/authors/${key('ada')}`)).body.biography).toBe('Wrote the first program');
      expect((await s.api('GET', `/imprints/${key('penguin')}`)).body).toMatchObject({
        id: key('penguin'),
        name: 'Penguin',
      });
      expect((await s.api('GET', `/books/${key('notes')}`)).body).toMatchObject({
        imprint: key('penguin'),
        imprint_id: key('penguin'),
      });
      expect((await s.api('GET', '/publishers')).status).toBe(404);
      // The events retained from before read as the API names their objects now (storage/events.ts).
      const ada = (await retainedEvents(engine, database.url, 'Author')).find(
        (e) => e.type === 'Author.create' && e.pk === String(key('ada')),
      );
      expect(ada?.fields).toMatchObject({ biography: 'Wrote the first program' });
      expect(ada?.fields).not.toHaveProperty('bio');
      const penguin = (await retainedEvents(engine, database.url, 'Imprint')).find(
        (e) => e.pk === String(key('penguin')),
      );
      expect(penguin).toMatchObject({ type: 'Imprint.create', fields: { name: 'Penguin' } });
      if ('_type' in penguin!.fields) expect(penguin!.fields['_type']).toBe('Imprint');
      expect(await retainedEvents(engine, database.url, 'Publisher')).toEqual([]);
      const books = await retainedEvents(engine, database.url, 'Book');
      const linked = books.filter(
        (e) => String(e.fields['imprint_id'] ?? e.fields['imprint']) === String(key('penguin')),
      );
      expect(linked.length).toBeGreaterThan(0);
      expect(books.every((e) => !('publisher' in e.fields) && !('publisher_id' in e.fields))).toBe(true);
      await remove(s.api, `/authors/${key('cascade')}`);
      lib.authors.delete(key('cascade'));
      for (const book of [key('cascade1'), key('cascade2')]) {
        expect((await s.api('GET', `/books/${book}`)).status).toBe(404);
        lib.books.delete(book);
      }
      keys.set('faber', await addPublisher(s, 'Faber'));
      keys.set(
        'twin',
        await addBook(s, {
          title: 'Same ISBN, later',
          isbn: '978-0-00-000001-1',
          publisher: key('faber'),
          author: key('austen'),
        }),
      );
      keys.set(
        'woolf',
        await addAuthor(s, { name: 'Virginia Woolf', bio: 'Essays and novels', nickname: 'virginia', rating: 9 }),
      );
      await expectLibrary(s);
    });
  });

  it('v5: books without pages have 0; an author has one profile at most; ebooks', async () => {
    await at(5, async (s) => {
      expect(await isbnIndexes(engine, database.url)).toEqual(['plain']);
      const pageless = [...lib.books.values()].filter((b) => b.pages === null).map((b) => b.id);
      expect(pageless.length).toBeGreaterThan(2);
      for (const id of pageless) expect((await s.api('GET', `/books/${id}`)).body.pages).toBe(0);
      await expectLibrary(s);
      const profile = await s.api('POST', '/profiles', { website: 'https://ada.example', author: key('ada') });
      const profileId = created(lib, 'profile', profile);
      lib.profiles.set(profileId, { id: profileId, website: 'https://ada.example', author: key('ada') });
      expect((await s.api('GET', `/authors/${key('ada')}`)).body.profile).toBe(profileId);
      expect((await s.api('POST', '/profiles', { website: 'https://two.example', author: key('ada') })).status).toBe(
        409,
      );
      const woolfProfile = created(
        lib,
        'profile',
        await s.api('POST', '/profiles', { website: 'https://woolf.example', author: key('woolf') }),
      );
      lib.profiles.set(woolfProfile, { id: woolfProfile, website: 'https://woolf.example', author: key('woolf') });
      keys.set('waves', await addBook(s, { title: 'The Waves', author: key('woolf'), format: 'ebook', pages: 300 }));
      keys.set('orlando', await addBook(s, { title: 'Orlando', author: key('woolf') }));
      expect((await s.api('GET', `/books/${key('orlando')}`)).body.pages).toBe(0);
      await expectLibrary(s);
    });
  });

  it('v6: nicknames and profiles are gone, everything else is there', async () => {
    await at(6, async (s) => {
      expect(await isbnIndexes(engine, database.url)).toEqual(['plain']);
      lib.profiles.clear();
      await expectLibrary(s);
      expect((await s.api('GET', '/profiles')).status).toBe(404);
      expect((await s.api('POST', '/authors', { name: 'Nick', nickname: 'nick' })).status).toBe(400);
      expect((await s.api('PATCH', `/authors/${key('ada')}`, { nickname: 'ada' })).status).toBe(400);
      keys.set('eliot', await addAuthor(s, { name: 'George Eliot', bio: 'Pen name', nickname: null, rating: 7 }));
      keys.set(
        'middlemarch',
        await addBook(s, { title: 'Middlemarch', author: key('eliot'), publisher: key('faber'), pages: 880 }),
      );
      await expectLibrary(s);
    });
  });

  it('v7: old authors have a joined_at; names are 120 characters at most', async () => {
    const started = `${new Date().toISOString().slice(0, 19)}Z`;
    await at(7, async (s) => {
      expect(await isbnIndexes(engine, database.url)).toEqual(['plain']);
      await expectLibrary(s);
      // The authors of earlier versions joined when the migration ran, all at one time.
      const joined = new Set((await listAll(s.api, '/authors')).map((a) => a['joined_at'] as string));
      expect(joined.size).toBe(1);
      const [time] = joined;
      expect(
        time! >= started && time! <= `${new Date().toISOString().slice(0, 19)}Z`,
        `${time} is not between ${started} and now`,
      ).toBe(true);
      expect((await s.api('POST', '/authors', { name: name(121) })).status).toBe(400);
      keys.set('newest', await addAuthor(s, { name: name(120), bio: null, nickname: null, rating: null }));
      expect(lib.authors.get(key('newest'))!.joinedAt).toMatch(ISO_TIME);
      await addBook(s, { title: 'The last one', author: key('newest') });
      await expectLibrary(s);
    });
    await expectSqliteIntact(engine, database.url);
  });

  it('a database two versions behind (at v2) is migrated to v4 in one start, its rows kept', async () => {
    const behind = await testDatabase(engine, buildOf(1), `evolution-behind-${engine}`);
    const old = new Library();
    const rows = new Map<string, number>();
    const row = (name: string) => rows.get(name) ?? expect.fail(`no row ${name} was written`);
    try {
      await atVersion(engine, behind, old, 2, async (s) => {
        rows.set(
          'author',
          await addAuthor(s, { name: 'Behind', bio: 'Two versions behind', nickname: 'behind', rating: 3 }),
        );
        rows.set('publisher', await addPublisher(s, 'Old House'));
        rows.set(
          'book',
          await addBook(s, { title: 'Kept', author: row('author'), isbn: '1-2', publisher: row('publisher') }),
        );
        rows.set('plain', await addBook(s, { title: 'Plain', inPrint: false }));
      });
      expect(await appliedMigrations(engine, behind.url)).toEqual(migrationNames().slice(0, 2));
      await atVersion(engine, behind, old, 4, async (s) => {
        await expectLibrary(s);
        expect((await s.api('GET', `/authors/${row('author')}`)).body).toMatchObject({
          biography: 'Two versions behind',
          nickname: 'behind',
          rating: 3,
        });
        expect((await s.api('GET', `/imprints/${row('publisher')}`)).body).toMatchObject({
          name: 'Old House',
          books: [row('book')],
        });
        expect((await s.api('GET', `/books/${row('book')}`)).body).toMatchObject({
          imprint: row('publisher'),
          format: 'paperback',
          in_print: true,
        });
        await addBook(s, { title: 'New', publisher: row('publisher'), format: 'hardcover' });
        await addPublisher(s, 'New House');
        await remove(s.api, `/authors/${row('author')}`);
        expect((await s.api('GET', `/books/${row('book')}`)).status).toBe(404);
        old.authors.delete(row('author'));
        old.books.delete(row('book'));
        await expectLibrary(s);
      });
      await expectSqliteIntact(engine, behind.url);
    } finally {
      await behind.drop();
    }
  });
});
