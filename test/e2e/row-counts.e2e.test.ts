/**
 * The kept numbers of rows (the runtime's lib/sql/row-counts.ts) on SQLite and PostgreSQL, over
 * HTTP with the blog fixture: a page of a whole collection reads its `total` (and `_count` its
 * answer) from them instead of counting the table, and they stay exact however rows come and go:
 * the service's writes one by one, many at once and at the same time, a cascade from a deleted
 * parent, a write rolled back, SQL behind the service's back, PostgreSQL's TRUNCATE, and a start
 * after the triggers were lost (as a SQLite rebuild or a rename loses them). The oracle is the same
 * count with a filter that every row passes, which the database counts row by row.
 *
 * A member who may see only some objects never gets the kept count: their page has conditions,
 * and the library fixture's trust tests (library-trust.e2e.test.ts) check that their total is
 * theirs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { querySql, runSql, testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api } from '../support/http.js';
import { builtProject } from '../support/project.js';
import { statementsDuring } from '../support/query-log.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/api/v2';
const SQL_ENGINES = ['sqlite', 'postgres'] as const;

describe.each(SQL_ENGINES)('kept row counts on %s', (engine) => {
  let dir: string;
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;
  let serial = 0;

  const start = async () => {
    service = await startService(dir, { ...database.env, SVC_LOG_LEVEL: 'debug' }, BASE);
    api = apiClient(service.origin, BASE);
  };
  const sql = (text: string) => runSql(engine, database.url, dir, text);
  const rows = (text: string) => querySql(engine, database.url, dir, text);
  const newPost = (author?: number) =>
    api('POST', author === undefined ? '/posts' : `/authors/${author}/posts`, {
      slug: `p-${++serial}`,
      title: `Post ${serial}`,
    });

  /** The page's total, `_count`, and the database's own count through a filter every row passes. */
  async function totals(): Promise<{ total: number; count: number; counted: number }> {
    const page = await api('GET', '/posts?_limit=1');
    const count = await api('GET', '/posts?_count');
    const counted = await api('GET', '/posts?_count&slug__isnull=false');
    for (const reply of [page, count, counted]) expect(reply.status, reply.text).toBe(200);
    return { total: page.body.total, count: count.body.count, counted: counted.body.count };
  }

  async function expectExact(expected: number): Promise<void> {
    expect(await totals()).toEqual({ total: expected, count: expected, counted: expected });
  }

  beforeAll(async () => {
    dir = await builtProject('blog', 'e2e-row-counts');
    database = await testDatabase(engine, dir, 'row-counts');
    await start();
  });

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('answers a page of the whole collection from the kept count, and a filtered one by counting', async () => {
    for (let i = 0; i < 3; i++) expect((await newPost()).status).toBe(201);
    const whole = await statementsDuring(service, async () => {
      expect((await api('GET', '/posts')).body.total).toBe(3);
    });
    expect(whole.some((s) => s.includes('svc_row_counts'))).toBe(true);
    expect(whole.filter((s) => /count\(\*\)/i.test(s) && s.includes('"post"'))).toEqual([]);
    const filtered = await statementsDuring(service, async () => {
      expect((await api('GET', '/posts?status=draft')).body.total).toBe(3);
    });
    expect(filtered.some((s) => s.includes('svc_row_counts'))).toBe(false);
    expect(filtered.some((s) => /count\(\*\)/i.test(s) && s.includes('"post"'))).toBe(true);
  });

  it('stays exact through single, bulk and concurrent writes, cascades and rollbacks', async () => {
    let expected = (await totals()).counted;
    const ann = (await api('POST', '/authors', { name: 'Ann', email: `ann-${engine}@example.com` })).body.id as number;
    for (let i = 0; i < 4; i++) expect((await newPost(ann)).status).toBe(201);
    expected += 4;
    await expectExact(expected);

    // One at a time, and twenty at once (PostgreSQL: from several connections).
    expect((await api('DELETE', `/posts/p-${serial}`)).status).toBe(200);
    expected -= 1;
    const created = await Promise.all(Array.from({ length: 20 }, () => newPost()));
    expect(created.map((r) => r.status)).toEqual(Array(20).fill(201));
    expected += 20;
    const gone = created.slice(0, 10).map((r) => r.body.slug as string);
    const deleted = await Promise.all(gone.map((slug) => api('DELETE', `/posts/${slug}`)));
    expect(deleted.map((r) => r.status)).toEqual(Array(10).fill(200));
    expected -= 10;
    await expectExact(expected);

    // Many in one statement: a collection DELETE with a filter.
    const slugs = created.slice(10, 15).map((r) => r.body.slug as string);
    const bulk = await api('DELETE', `/posts?slug__in=${slugs.join(',')}`);
    expect(bulk.body.count).toBe(5);
    expected -= 5;
    await expectExact(expected);

    // Deleting the author cascades to their three posts left, in the database.
    expect((await api('DELETE', `/authors/${ann}`)).status).toBe(200);
    expected -= 3;
    await expectExact(expected);

    // A write refused after it began (a duplicate key) leaves nothing, the count included.
    expect((await api('POST', '/posts', { slug: 'p-1', title: 'Again' })).status).toBe(409);
    await expectExact(expected);
  });

  it('counts rows written behind the service’s back, and a transaction rolled back there', async () => {
    const before = (await totals()).counted;
    await sql(`insert into post (slug, title, status, views, tags) values ('behind-1', 'Behind', 'draft', 0, '[]'),
      ('behind-2', 'Behind', 'draft', 0, '[]')`);
    await sql(
      `begin; insert into post (slug, title, status, views, tags) values ('rolled', 'Rolled', 'draft', 0, '[]'); rollback;`,
    );
    await expectExact(before + 2);
    await sql(`delete from post where slug = 'behind-1'`);
    await expectExact(before + 1);
    // A count row taken away behind its back: the table is counted instead (until the next start).
    await sql('delete from svc_row_counts');
    await expectExact(before + 1);
    await service.stop();
    await start();
    await expectExact(before + 1);
  });

  it.runIf(engine === 'postgres')('folds the changes into the count a second after the writes', async () => {
    const before = (await totals()).counted;
    for (let i = 0; i < 3; i++) expect((await newPost()).status).toBe(201);
    await expect
      .poll(async () => rows('select count(*)::int as n from svc_row_count_deltas'), { timeout: 5_000 })
      .toEqual([{ n: 0 }]);
    await expectExact(before + 3);
  });

  it.runIf(engine === 'postgres')('starts again from nothing after a TRUNCATE', async () => {
    await sql('truncate comment, post');
    await expectExact(0);
    expect((await newPost()).status).toBe(201);
    await expectExact(1);
  });

  it('recounts at start a table whose triggers are gone, and not one whose triggers are there', async () => {
    const before = (await totals()).counted;
    await service.stop();
    // As a migration that rebuilds (SQLite) or a hand that drops them would: rows then come uncounted.
    await sql(
      engine === 'sqlite'
        ? 'drop trigger svc_count_post_insert'
        : 'drop trigger svc_count_added on post; drop trigger svc_count_removed on post',
    );
    await sql(
      `insert into post (slug, title, status, views, tags) values ('uncounted', 'Uncounted', 'draft', 0, '[]')`,
    );
    await start();
    await expectExact(before + 1);
    // Kept from here on, without a recount: a wrong count left in place would show (it is the proof).
    await service.stop();
    await sql(
      engine === 'sqlite'
        ? `update svc_row_counts set n = n + 1000 where "table" = 'author'`
        : `update svc_row_counts set n = n + 1000 where relid = 'author'::regclass`,
    );
    await start();
    expect((await api('GET', '/authors?_count')).body.count).toBeGreaterThanOrEqual(1000);
    await expectExact(before + 1);
  });
});
