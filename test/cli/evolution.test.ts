/**
 * Schema evolution in the generator: fixtures/evolution/v1…v7 generated one after
 * the other into one out-dir. Each version's new migration and storage model are golden files
 * (snapshots/evolution/); the refusals (data loss, rows that need a value, renames that name
 * nothing, a tampered or missing history) write nothing; `--check` fails while a migration is
 * missing. test/e2e/evolution.e2e.test.ts runs the migrations on real databases.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';

const VERSIONS = ['v1', 'v2', 'v3', 'v4', 'v5', 'v6', 'v7'] as const;
/** Versions that drop data: generated with --allow-data-loss. */
const LOSSY = new Set(['v6', 'v7']);

/** A work folder with `api/` (the API of one version) and `out/` (the project). */
function workspace(): {
  dir: string;
  use(version: string): void;
  generate(...flags: string[]): ReturnType<typeof runCli>;
} {
  const dir = mkdtempSync(join(tmpdir(), 'svcgen-evolution-'));
  return {
    dir,
    use(version) {
      rmSync(join(dir, 'api'), { recursive: true, force: true });
      cpSync(join(repoRoot, 'fixtures/evolution', version), join(dir, 'api'), { recursive: true });
    },
    generate: (...flags) => runCli(['generate', 'api/api.raml', '-o', 'out', ...flags], dir),
  };
}

const migrationsOf = (dir: string) => readdirSync(join(dir, 'out/src/db/migrations')).sort();

/**
 * A project generated at `version` whose storage.json is then made to look as an older svcgen
 * wrote it (`forget` takes out what that one did not write), and generated again: the migration
 * that this adds, and the storage.json file.
 */
async function upgraded(
  version: string,
  forget: (storage: { tables: Record<string, unknown>[] }) => void,
): Promise<{ work: ReturnType<typeof workspace>; file: string; migrations: string[]; migration: string }> {
  const work = workspace();
  work.use(version);
  expect((await work.generate()).code).toBe(0);
  const file = join(work.dir, 'out/src/db/storage.json');
  const storage = JSON.parse(readFileSync(file, 'utf8'));
  forget(storage);
  writeFileSync(file, `${JSON.stringify(storage, null, 2)}\n`);
  // --force: the manifest knows the file as this svcgen wrote it (an older one wrote it so).
  expect((await work.generate('--force')).code).toBe(0);
  const migrations = migrationsOf(work.dir);
  const migration = readFileSync(join(work.dir, 'out/src/db/migrations', migrations[1]!), 'utf8');
  return { work, file, migrations, migration };
}

/** Every file of the out-dir, path → content. */
function tree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (rel: string) => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) visit(path);
      else out.set(path, readFileSync(join(dir, path), 'utf8'));
    }
  };
  visit('');
  return out;
}

describe('the library API through seven versions', () => {
  const work = workspace();
  const written = new Map<string, string[]>();
  const said = new Map<string, string>();
  /** What `--dry-run` said of v6, and the migrations there were after it. */
  let dryRun: { said: string; migrations: string[] } | undefined;

  beforeAll(async () => {
    for (const version of VERSIONS) {
      work.use(version);
      const before = existsSync(join(work.dir, 'out/src/db/migrations')) ? migrationsOf(work.dir) : [];
      // The versions change what clients see too (API-CHANGES.md records it); this test is about storage.
      const flags = ['--allow-breaking', ...(LOSSY.has(version) ? ['--allow-data-loss'] : [])];
      if (version === 'v6') {
        const run = await work.generate('--dry-run', ...flags);
        if (run.code !== 0) throw new Error(`${version} --dry-run: ${run.stderr}`);
        dryRun = { said: run.stderr, migrations: migrationsOf(work.dir) };
      }
      const run = await work.generate(...flags);
      if (run.code !== 0) throw new Error(`${version}: ${run.stderr}`);
      said.set(version, run.stderr);
      written.set(
        version,
        migrationsOf(work.dir).filter((m) => !before.includes(m)),
      );
      const storage = readFileSync(join(work.dir, 'out/src/db/storage.json'), 'utf8');
      writeFileSync(join(work.dir, `storage-${version}.json`), storage);
    }
  }, 120_000);

  it.each(VERSIONS)('%s writes one new migration, and the storage model it leaves (golden files)', async (version) => {
    const added = written.get(version)!;
    expect(added).toHaveLength(1);
    const golden = join(repoRoot, 'snapshots/evolution', version);
    await expect(readFileSync(join(work.dir, 'out/src/db/migrations', added[0]!), 'utf8')).toMatchFileSnapshot(
      join(golden, added[0]!),
    );
    await expect(readFileSync(join(work.dir, `storage-${version}.json`), 'utf8')).toMatchFileSnapshot(
      join(golden, 'storage.json'),
    );
  });

  it('numbers migrations in order and lists them all in src/db/migrations.ts', () => {
    const names = migrationsOf(work.dir).map((f) => f.replace(/\.ts$/, ''));
    expect(names.map((n) => n.slice(0, 4))).toEqual(['0001', '0002', '0003', '0004', '0005', '0006', '0007']);
    const index = readFileSync(join(work.dir, 'out/src/db/migrations.ts'), 'utf8');
    for (const name of names) expect(index).toContain(`from './migrations/${name}.js'`);
  });

  // A probe had to open the migration to learn what it does to stored rows.
  it('names each new migration and what it changes when it is written, but for the initial one', () => {
    expect(said.get(VERSIONS[0])).not.toContain('new migration');
    const v6 = written.get('v6')![0]!;
    const text = readFileSync(join(work.dir, 'out/src/db/migrations', v6), 'utf8');
    const comment = text.slice(text.indexOf(' * What changed:\n') + 17, text.indexOf('\n */'));
    const lines = comment.split('\n').filter((line) => line !== ' *');
    expect(lines).toContain(' * - Author.nickname removed');
    expect(lines).toContain(' * It drops data (written with --allow-data-loss):');
    const shown = lines.map((line) => `  ${line.slice(3)}\n`).join('');
    expect(said.get('v6')).toContain(`svcgen: new migration out/src/db/migrations/${v6}, run when the service starts`);
    expect(said.get('v6')).toContain(shown);
  });

  // A new user's --dry-run listed the migration's name only: what it does to the stored rows is what they ran it for.
  it('says with --dry-run what the new migration would change, and writes nothing', () => {
    const v6 = written.get('v6')![0]!;
    expect(dryRun?.migrations).not.toContain(v6);
    expect(dryRun?.said).toContain(`svcgen: would write the migration out/src/db/migrations/${v6}`);
    expect(dryRun?.said).toContain('  - Author.nickname removed\n');
    expect(dryRun?.said).toContain('  It drops data (written with --allow-data-loss):\n');
    expect(dryRun?.said).toContain('svcgen: dry run, nothing written to out');
  });

  it('says in the migration what --allow-data-loss let it drop', () => {
    const v6 = readFileSync(join(work.dir, 'out/src/db/migrations', written.get('v6')![0]!), 'utf8');
    expect(v6).toContain('It drops data (written with --allow-data-loss)');
    expect(v6).toContain('field Author.nickname is removed');
    expect(v6).toContain('model Profile is removed');
  });

  it('writes nothing new when the API did not change, and keeps earlier migrations byte for byte', async () => {
    const before = tree(work.dir);
    const run = await work.generate();
    expect(run.code, run.stderr).toBe(0);
    expect(tree(work.dir)).toEqual(before);
  });
});

describe('projects generated before full-text search', () => {
  it('get one migration that creates the search indexes of every table, and a storage model that lists them', async () => {
    // storage.json as svcgen wrote it before search: no "search" in its tables.
    const { work, file, migrations, migration } = await upgraded('v1', (storage) => {
      for (const table of storage.tables) delete table['search'];
    });
    expect(migrations[0]).toBe('0001_initial.ts');
    expect(migration).toContain(' * - Author: full-text search on name, bio, nickname');
    expect(migration).toContain(' * - Book: full-text search on title');
    expect(migration).toContain(
      `create virtual table "svc_search_author" using fts5("name", "bio", "nickname", content='', contentless_delete=1`,
    );
    expect(migration).toContain(`insert into "svc_search_book" (rowid, "title") select rowid, "title" from "book";`);
    expect(migration).toContain('alter table "author" add column "svc_search_bio" tsvector generated always as');
    expect(migration).toContain(
      `{ op: 'indexWords', collection: 'author', fields: { name: 'name', bio: 'bio', nickname: 'nickname' } }`,
    );
    expect(JSON.parse(readFileSync(file, 'utf8')).tables.map((t: { search: string[] }) => t.search)).toEqual([
      ['name', 'bio', 'nickname'],
      ['title'],
    ]);
    expect((await work.generate('--check')).code).toBe(0);
  });
});

describe('a text field whose "search" is turned off, then on again', () => {
  it('gets one migration each way that rebuilds the search index without it, then with it', async () => {
    const work = workspace();
    work.use('v1');
    expect((await work.generate()).code).toBe(0);
    const author = join(work.dir, 'api/schemas/author.json');
    const searched = (on: boolean) => {
      const schema = JSON.parse(readFileSync(author, 'utf8'));
      schema.properties.bio._db_settings.search = on;
      writeFileSync(author, JSON.stringify(schema, null, 2));
    };
    const storedSearch = () =>
      JSON.parse(readFileSync(join(work.dir, 'out/src/db/storage.json'), 'utf8')).tables.map(
        (t: { search: string[] }) => t.search,
      );

    searched(false);
    // Clients that send `_search_fields=bio` are refused from now on: the break guard says so first.
    const refused = await work.generate();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('_search_fields');
    expect((await work.generate('--allow-breaking')).code).toBe(0);
    const off = migrationsOf(work.dir);
    expect(off).toHaveLength(2);
    const without = readFileSync(join(work.dir, 'out/src/db/migrations', off[1]!), 'utf8');
    expect(without).toContain(' * - Author: full-text search on name, nickname');
    expect(without).toContain(`using fts5("name", "nickname", content=''`);
    expect(without).toContain('drop column if exists "svc_search_bio"');
    expect(without).not.toContain('add column "svc_search_bio"');
    // On PostgreSQL the other fields' vectors stay: each one dropped and made again rewrote the table.
    expect(without).not.toMatch(/(drop column if exists|add column) "svc_search_(name|nickname)"/);
    expect(without).toContain(
      `{ op: 'indexWords', collection: 'author', fields: { name: 'name', nickname: 'nickname' } }`,
    );
    expect(storedSearch()).toEqual([['name', 'nickname'], ['title']]);
    expect((await work.generate('--check')).code).toBe(0);

    searched(true);
    expect((await work.generate()).code).toBe(0);
    const on = migrationsOf(work.dir);
    expect(on).toHaveLength(3);
    const again = readFileSync(join(work.dir, 'out/src/db/migrations', on[2]!), 'utf8');
    expect(again).toContain(' * - Author: full-text search on name, bio, nickname');
    expect(again).toContain('add column "svc_search_bio" tsvector generated always as');
    expect(again).not.toMatch(/svc_search_(name|nickname)"/);
    expect(storedSearch()).toEqual([['name', 'bio', 'nickname'], ['title']]);
  });
});

describe('projects whose SQLite search index is kept by triggers (svcgen before it was caught up in batches)', () => {
  it('get one migration that rebuilds it on SQLite only: PostgreSQL and MongoDB keep theirs', async () => {
    // storage.json as svcgen wrote it then: no "searchIndex" in its tables.
    const { work, file, migration } = await upgraded('v1', (storage) => {
      for (const table of storage.tables) delete table['searchIndex'];
    });
    expect(migration).toContain(
      " * - Author: SQLite's search index rebuilt, to be caught up in batches instead of on every write",
    );
    // The old objects go, by their names, before the new ones come.
    const sqlite = /sqlite: `([^`]*)`/.exec(migration)![1]!;
    expect(sqlite.indexOf('drop trigger if exists "svc_search_author_insert";')).toBeGreaterThanOrEqual(0);
    expect(sqlite.indexOf('drop table if exists "svc_search_author";')).toBeLessThan(
      sqlite.indexOf('create virtual table "svc_search_author"'),
    );
    // The old kind has no state table: nothing may delete from it before it is created.
    expect(sqlite.indexOf('create table if not exists "svc_search_state"')).toBeLessThan(
      sqlite.indexOf('svc_search_state" where'),
    );
    expect(sqlite).not.toContain('delete from "svc_search_state"');
    expect(sqlite).toContain(
      `insert or replace into "svc_search_state" ("name", "indexed_to") values ('author', coalesce((select max(rowid) from "author"), 0));`,
    );
    expect(/postgres: `([^`]*)`/.exec(migration)?.[1]?.trim() ?? '').toBe('');
    expect(migration).not.toContain('indexWords');
    expect(JSON.parse(readFileSync(file, 'utf8')).tables.map((t: { searchIndex: number }) => t.searchIndex)).toEqual([
      2, 2,
    ]);
    expect((await work.generate('--check')).code).toBe(0);
  });
});

describe('projects generated before svcgen honoured "index" (it was accepted and ignored)', () => {
  it('get one migration that makes the indexes their schemas asked for, on every engine', async () => {
    // storage.json as svcgen wrote it then: no "indexed" in its columns (Book.isbn asks for one).
    const { work, file, migration } = await upgraded('v2', (storage) => {
      for (const table of storage.tables)
        for (const column of table['columns'] as Record<string, unknown>[]) delete column['indexed'];
    });
    expect(migration).toContain(' * - Book.isbn: indexed');
    expect(/sqlite: `([^`]*)`/.exec(migration)![1]!.trim()).toBe('create index "book_isbn_idx" on "book" ("isbn");');
    expect(/postgres: `([^`]*)`/.exec(migration)![1]!.trim()).toBe('create index "book_isbn_idx" on "book" ("isbn");');
    expect(migration).toContain(`{ op: 'createIndex', collection: 'book', field: 'isbn', unique: false, asked: true }`);
    const isbn = JSON.parse(readFileSync(file, 'utf8'))
      .tables.find((t: { name: string }) => t.name === 'book')
      .columns.find((c: { name: string }) => c.name === 'isbn');
    expect(isbn.indexed).toBe(true);
    expect((await work.generate('--check')).code).toBe(0);
  });
});

describe('refusals', () => {
  /** An out-dir generated at `version`, with the API of `next` in api/. */
  async function at(version: string, next: string) {
    const work = workspace();
    work.use(version);
    expect((await work.generate()).code).toBe(0);
    work.use(next);
    return { work, before: tree(join(work.dir, 'out')) };
  }

  it('--check fails while the API needs a migration that is not there, naming it', async () => {
    const { work } = await at('v1', 'v2');
    const check = await work.generate('--check');
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/add\s+src\/db\/migrations\/0002_\w+\.ts/);
    expect((await work.generate()).code).toBe(0);
    expect((await work.generate('--check')).code).toBe(0);
  });

  it('data loss is refused without --allow-data-loss, naming each field and model, and nothing is written', async () => {
    const { work, before } = await at('v5', 'v6');
    const run = await work.generate();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error SVC3101: field Author.nickname is removed');
    expect(run.stderr).toContain('error SVC3101: model Profile is removed');
    // The field is gone from the schema: the error points into the schema file, where it was.
    expect(run.stderr).toMatch(/author\.json:\d+:\d+ - error SVC3101: field Author\.nickname is removed/);
    expect(tree(join(work.dir, 'out'))).toEqual(before);
    const check = await work.generate('--check');
    expect(check.code).toBe(1);
    // It does not send the reader to a generate that refuses.
    expect(check.stderr).toContain('svcgen generate refuses it until the errors above are resolved');
    expect(check.stderr).not.toContain('run svcgen generate to update it');
    // The fields and routes are gone for clients too: that needs its own consent.
    expect(run.stderr).toContain('error SVC3111: breaks clients: GET /profiles: route removed');
    const dataOnly = await work.generate('--allow-data-loss');
    expect(dataOnly.code).toBe(1);
    expect(dataOnly.stderr).not.toContain('error SVC3101');
    expect(tree(join(work.dir, 'out'))).toEqual(before);
    const allowed = await work.generate('--allow-data-loss', '--allow-breaking');
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stderr).toContain('warning SVC3101');
    expect(allowed.stderr).toContain('warning SVC3111');
  });

  it('a required field without a default is refused: stored rows would have no value', async () => {
    const { work, before } = await at('v1', 'v1');
    const schema = join(work.dir, 'api/schemas/book.json');
    const book = JSON.parse(readFileSync(schema, 'utf8'));
    book.properties.edition = { type: 'integer', _db_settings: { type: 'integer', required: true } };
    writeFileSync(schema, JSON.stringify(book));
    const run = await work.generate();
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/schemas\/book.json:\d+:\d+ - error SVC3102: required field Book.edition is added/);
    expect(tree(join(work.dir, 'out'))).toEqual(before);
  });

  it('a renamed_from that names no field of the previous version is an error, not ignored', async () => {
    const { work } = await at('v1', 'v1');
    const schema = join(work.dir, 'api/schemas/author.json');
    const author = JSON.parse(readFileSync(schema, 'utf8'));
    author.properties.motto = { type: 'string', _db_settings: { type: 'string', renamed_from: 'slogan' } };
    writeFileSync(schema, JSON.stringify(author));
    const run = await work.generate();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'error SVC3103: "renamed_from" of Author.motto names no field of the previous version (slogan)',
    );
  });

  it('a renamed_from on a field the previous version had already is a warning, once: nothing is renamed', async () => {
    const { work } = await at('v1', 'v1');
    const schema = join(work.dir, 'api/schemas/author.json');
    const author = JSON.parse(readFileSync(schema, 'utf8'));
    author.properties.bio._db_settings.renamed_from = 'biography';
    writeFileSync(schema, JSON.stringify(author));
    const run = await work.generate();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /author\.json:\d+:\d+ - warning SVC3103: "renamed_from" of Author\.bio names no field of the previous version \(biography\), and the previous version has this one already: nothing is renamed/,
    );
    expect(migrationsOf(work.dir)).toEqual(['0001_initial.ts']);
    const again = await work.generate();
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain('SVC3103');
  });

  it('a migration module of your own (a data migration) is listed and kept, and the next one is numbered after it', async () => {
    const { work } = await at('v1', 'v1');
    const mine =
      "import type { Migration } from '../../lib/migrate.js';\nexport const migration: Migration = { name: '0002_backfill', sqlite: 'update book set pages = 1', postgres: 'update book set pages = 1' };\n";
    writeFileSync(join(work.dir, 'out/src/db/migrations/0002_backfill.ts'), mine);
    expect((await work.generate()).code).toBe(0);
    expect(readFileSync(join(work.dir, 'out/src/db/migrations.ts'), 'utf8')).toContain(
      "from './migrations/0002_backfill.js'",
    );
    work.use('v2');
    expect((await work.generate()).code).toBe(0);
    expect(migrationsOf(work.dir)).toEqual(['0001_initial.ts', '0002_backfill.ts', '0003_author_book_publisher.ts']);
    expect(readFileSync(join(work.dir, 'out/src/db/migrations/0002_backfill.ts'), 'utf8')).toBe(mine);
  });

  it('a renamed_from already applied is not applied again', async () => {
    const { work } = await at('v3', 'v4');
    // v4's renames keep the data but change the JSON names clients use.
    expect((await work.generate('--allow-breaking')).code).toBe(0);
    const count = migrationsOf(work.dir).length;
    expect((await work.generate()).code).toBe(0);
    expect(migrationsOf(work.dir)).toHaveLength(count);
  });

  it('a rename whose old name is taken again by a new field is applied once, however often it is generated', async () => {
    const { work } = await at('v1', 'v1');
    const schema = join(work.dir, 'api/schemas/author.json');
    const author = JSON.parse(readFileSync(schema, 'utf8'));
    author.properties.alias = { type: ['string', 'null'], _db_settings: { type: 'string', renamed_from: 'nickname' } };
    author.properties.nickname = { type: ['string', 'null'], _db_settings: { type: 'string', unique: true } };
    writeFileSync(schema, JSON.stringify(author));
    // Clients are told: a rename breaks them, and nickname now names another field (a probe's was
    // "made nullable" alone).
    const refused = await work.generate();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Author.nickname renamed to alias');
    const run = await work.generate('--allow-breaking');
    expect(run.code, run.stderr).toBe(0);
    const [, second] = migrationsOf(work.dir);
    expect(readFileSync(join(work.dir, 'out/src/db/migrations', second!), 'utf8')).toContain(
      'rename column "nickname" to "alias"',
    );
    for (let i = 0; i < 2; i++) {
      const again = await work.generate();
      expect(again.code, again.stderr).toBe(0);
      expect(migrationsOf(work.dir)).toHaveLength(2);
    }
  });

  it('a tampered storage model is refused before anything reaches a migration', async () => {
    const { work, before } = await at('v1', 'v2');
    const file = join(work.dir, 'out/src/db/storage.json');
    const storage = JSON.parse(readFileSync(file, 'utf8'));
    storage.tables[0].columns[1].postgres = 'text; drop table "user"; --';
    writeFileSync(file, JSON.stringify(storage));
    const run = await work.generate();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'error SVC3105: src/db/storage.json cannot be read: tables[0].columns[1].postgres must match',
    );
    expect(tree(join(work.dir, 'out'))).toEqual(new Map([...before, ['src/db/storage.json', JSON.stringify(storage)]]));
  });

  it('--check fails on an edited migration until a generation records the edit', async () => {
    const { work } = await at('v1', 'v2');
    expect((await work.generate()).code).toBe(0);
    const [, second] = migrationsOf(work.dir);
    const file = join(work.dir, 'out/src/db/migrations', second!);
    writeFileSync(file, `${readFileSync(file, 'utf8')}// a step of my own\n`);
    const check = await work.generate('--check');
    expect(check.code).toBe(1);
    expect(check.stderr).toContain(`warning SVC3107: migration src/db/migrations/${second} is not as svcgen wrote it`);
    expect(check.stderr).toContain('error SVC3010');
    expect(check.stderr).toContain('a migration was edited (SVC3107 above): restore it if any database has run it');
    // Generating records the edit and keeps it; then the out-dir is up to date.
    expect((await work.generate()).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('// a step of my own');
    expect((await work.generate('--check')).code).toBe(0);
  });

  it('a deleted migration stops the run: databases that ran it need it', async () => {
    const { work } = await at('v1', 'v2');
    expect((await work.generate()).code).toBe(0);
    const [, second] = migrationsOf(work.dir);
    rmSync(join(work.dir, 'out/src/db/migrations', second!));
    const run = await work.generate();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `error SVC3106: migration src/db/migrations/${second} was written by svcgen and is gone`,
    );
  });

  it('a search column that is not a column of its table is refused as tampering', async () => {
    const { work } = await at('v1', 'v1');
    const file = join(work.dir, 'out/src/db/storage.json');
    const storage = JSON.parse(readFileSync(file, 'utf8'));
    storage.tables[0].search = ['name', 'nosuch'];
    writeFileSync(file, JSON.stringify(storage));
    const run = await work.generate();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'error SVC3105: src/db/storage.json cannot be read: tables[0].search[1] must name a column of the table',
    );
  });

  it('migrations without a storage model are refused: svcgen cannot tell what they leave', async () => {
    const { work } = await at('v1', 'v2');
    rmSync(join(work.dir, 'out/src/db/storage.json'));
    const run = await work.generate();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error SVC3104: src/db/storage.json is missing, but the project has migrations');
  });
});

describe('a project generated before the login throttle lived in the database', () => {
  it('gets a migration that creates its table, and nothing else changes in the schema', async () => {
    // The history of the blog project as svcgen wrote it before AuthLoginFailure existed (manifest,
    // storage model, first migration); every other file is produced again.
    const dir = mkdtempSync(join(tmpdir(), 'svcgen-upgrade-'));
    cpSync(join(repoRoot, 'fixtures/upgrade/blog-before-login-throttle'), join(dir, 'out'), { recursive: true });
    const run = await runCli(['generate', join(repoRoot, 'fixtures/blog/api.raml'), '-o', 'out'], dir);
    expect(run.code, run.stderr).toBe(0);
    const [first, added, ...more] = migrationsOf(dir);
    expect([first, more]).toEqual(['0001_initial.ts', []]);
    const migration = readFileSync(join(dir, 'out/src/db/migrations', added!), 'utf8');
    expect(migration).toContain('create table "auth_login_failure"');
    // That history also predates SQLite's caught-up search index: its rebuild is the only other change.
    const changes = migration.match(/^ \* - .*$/gm)!;
    expect(
      changes.filter(
        (c) => !c.endsWith("SQLite's search index rebuilt, to be caught up in batches instead of on every write"),
      ),
    ).toEqual([
      ' * - new model AuthLoginFailure (table auth_login_failure)',
      // …and before usernames claimed their plain forms.
      ' * - new model AuthLoginName (table auth_login_name)',
    ]);
    expect(migration).not.toMatch(/alter table/);
    expect(
      migration.match(/^drop .*$/gm)!.every((d) => /^drop (trigger|table) if exists "svc_search_\w+";$/.test(d)),
    ).toBe(true);
  });
});
