/**
 * Keyset paging over HTTP on SQLite, PostgreSQL and MongoDB (fixtures/filters: every sortable field
 * type, with nulls and ties). Following the `next` links from the first page gives exactly the
 * objects, in exactly the order, that one page of everything gives, whatever the `_sort`, the
 * filters and the page size; each page's `start` is its offset; the last page has no `next`. A
 * cursor cannot be used to see more than the query's filters allow, nor under another `_sort`.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api } from '../support/http.js';
import { builtProject } from '../support/project.js';
import { seededRandom } from '../support/random.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/v1';

/** Item's sortable fields, and few values each (nulls included), so that sorts meet many ties. */
const POOLS: Readonly<Record<string, readonly unknown[]>> = {
  note: ['alpha', 'beta', null],
  count: [-2, 0, 3, null],
  big: [2 ** 40, -(2 ** 40), null],
  small: [-3, 2, null],
  ratio: [0.5, -2.5, null],
  price: [1.1, 10.55, null],
  active: [true, false, null],
  seen_at: ['2026-01-02T03:04:05Z', '2025-12-31T00:00:00Z', null],
  day: ['2026-01-02', '2024-02-29', null],
  clock: ['00:00:00', '23:59:59', null],
  wait: [0, 3600, null],
  size: ['s', 'l', null],
};
const SORTABLE = ['id', 'code', ...Object.keys(POOLS)];

async function seed(api: Api): Promise<void> {
  const next = seededRandom(11);
  // Items link to owner 1 unless told otherwise (owner_id's default).
  await api('POST', '/owners', { name: 'ann' });
  for (let i = 0; i < 30; i++) {
    const body: Record<string, unknown> = { code: `c${String(i).padStart(2, '0')}` };
    for (const [name, pool] of Object.entries(POOLS)) body[name] = pool[Math.floor(next() * pool.length)];
    const reply = await api('POST', '/items', body);
    if (reply.status !== 201) throw new Error(`seeding failed: ${reply.text}`);
  }
}

/** A cursor as the service writes one: base64url of its JSON. */
const encoded = (cursor: unknown[]) => Buffer.from(JSON.stringify(cursor)).toString('base64url');

interface Page {
  readonly total: number;
  readonly count: number;
  readonly start: number;
  readonly next?: string;
  readonly data: { readonly id: number }[];
}

/** Every page from `path`'s first, following `next`; fails on any answer but 200. */
async function walk(api: Api, path: string): Promise<Page[]> {
  const pages: Page[] = [];
  for (let url: string | undefined = path; url !== undefined && pages.length < 100;) {
    const reply = await api('GET', url);
    expect(reply.status, reply.text).toBe(200);
    const page = reply.body as Page;
    pages.push(page);
    url =
      page.next === undefined ? undefined : new URL(page.next).pathname.slice(BASE.length) + new URL(page.next).search;
  }
  return pages;
}

const sortOf = fc
  .uniqueArray(fc.constantFrom(...SORTABLE), { minLength: 0, maxLength: 3 })
  .chain((names) => fc.tuple(...names.map((name) => fc.constantFrom(name, `-${name}`))));

const filterOf = fc.constantFrom('', 'active=true', 'count__gte=0', 'note__isnull=true', 'size=s,l', 'code__ne=c03');

describe.each(ENGINES)('keyset paging (_after) on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;

  beforeAll(async () => {
    const dir = await builtProject('filters', 'e2e-cursor');
    database = await testDatabase(engine, dir, 'cursor');
    service = await startService(dir, database.env, BASE);
    api = apiClient(service.origin, BASE);
    await seed(api);
  });

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('follows next links through exactly the objects of one whole page, in its order', async () => {
    await fc.assert(
      fc.asyncProperty(sortOf, filterOf, fc.integer({ min: 1, max: 8 }), async (sort, filter, limit) => {
        const query = [filter, sort.length ? `_sort=${sort.join(',')}` : ''].filter(Boolean).join('&');
        const whole = (await api('GET', `/items?_limit=1000&${query}`)).body as Page;
        const pages = await walk(api, `/items?_limit=${limit}&${query}`);
        expect(pages.flatMap((p) => p.data.map((o) => o.id))).toEqual(whole.data.map((o) => o.id));
        expect(pages.map((p) => p.start)).toEqual(pages.map((_, i) => i * limit));
        expect(pages.every((p) => p.total === whole.total)).toBe(true);
        expect(pages.at(-1)!.next).toBeUndefined();
        expect(pages.slice(0, -1).every((p) => p.count === limit && p.next?.includes('_after='))).toBe(true);
      }),
      { numRuns: Number(process.env['FUZZ_RUNS'] ?? 40) },
    );
  });

  it('keeps the filters: a cursor of an unfiltered walk, used with a filter, gives only what matches', async () => {
    const first = (await api('GET', '/items?_limit=5&_sort=count')).body as Page;
    const cursor = new URL(first.next!).searchParams.get('_after')!;
    const filtered = (await api('GET', `/items?_limit=1000&_sort=count&active=true&_after=${cursor}`)).body as Page;
    const all = (await api('GET', '/items?_limit=1000&_sort=count&active=true')).body as Page;
    const allIds = all.data.map((o) => o.id);
    expect(filtered.data.every((o) => allIds.includes(o.id))).toBe(true);
    expect(filtered.data.every((o) => (o as unknown as { active: boolean }).active === true)).toBe(true);
  });

  it('refuses a cursor made under another _sort, a forged one (text no database keeps too), and _after with _start or with q alone', async () => {
    const first = (await api('GET', '/items?_limit=5&_sort=count')).body as Page;
    const cursor = new URL(first.next!).searchParams.get('_after')!;
    const forged = encoded(['count', 5, 'not a number', 1]);
    const cases: [string, RegExp][] = [
      [`/items?_sort=-count&_after=${cursor}`, /_after was made for _sort=count/],
      [`/items?_sort=count&_after=${forged}`, /_after is not a cursor this service gave/],
      ['/items?_sort=count&_after=%7B%7D', /_after is not a cursor this service gave/],
      // Text no database keeps (PostgreSQL refuses a NUL): a 400, as the same text anywhere else in a request is.
      [`/items?_sort=note&_after=${encoded(['note', 5, '\u0000', 1])}`, /_after is not a cursor this service gave/],
      [`/items?_sort=note&_after=${encoded(['note', 5, 'a\ud800', 1])}`, /_after is not a cursor this service gave/],
      [`/items?_sort=code&_after=${encoded(['code', 5, 'c\u0000', 1])}`, /_after is not a cursor this service gave/],
      [`/items?_sort=count&_start=5&_after=${cursor}`, /_after cannot be combined with _start/],
      [`/items?q=alpha&_after=${cursor}`, /_after pages in _sort order/],
    ];
    for (const [path, message] of cases) {
      const reply = await api('GET', path);
      expect(reply.status, path).toBe(400);
      expect(reply.body.message, path).toMatch(message);
    }
  });

  it('goes past max_offset, where _start may not', async () => {
    // The service's max_offset is 100,000; a cursor's page is not bounded by it.
    const forged = Buffer.from(JSON.stringify(['', 200_000, 0])).toString('base64url');
    const reply = await api('GET', `/items?_limit=100&_after=${forged}`);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ start: 200_000, count: 30 });
    expect((await api('GET', '/items?_start=200000')).status).toBe(400);
  });

  it('pages in best-match order (q without _sort) with _start links', async () => {
    const pages = await walk(api, '/items?q=alpha&_limit=2');
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.slice(0, -1).every((p) => p.next?.includes('_start='))).toBe(true);
    const whole = (await api('GET', '/items?q=alpha&_limit=1000')).body as Page;
    expect(pages.flatMap((p) => p.data.map((o) => o.id))).toEqual(whole.data.map((o) => o.id));
  });
});
