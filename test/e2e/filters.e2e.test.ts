/**
 * Filters and bulk writes over HTTP on SQLite, PostgreSQL and MongoDB (fixtures/filters: every
 * field type a filter can meet). A filter is never dropped: it selects what the contract says
 * (test/support/filter-oracle.ts), or the request is a 400 naming it; and collection
 * PATCH/PUT/DELETE touch exactly the objects a GET with the same query returns.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, querySql, testDatabase, type TestDatabase } from '../support/databases.js';
import { expected, OPERATORS, queryString, type FieldKind, type Filter, type Rec } from '../support/filter-oracle.js';
import { apiClient, type Api } from '../support/http.js';
import { builtProject } from '../support/project.js';
import { seededRandom } from '../support/random.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/v1';

/** Every filterable field of Item (and `meta`, a dict, which no filter but isnull takes). */
const KINDS: Readonly<Record<string, FieldKind>> = {
  id: 'int',
  code: 'text',
  note: 'text',
  count: 'int',
  big: 'int',
  small: 'int',
  ratio: 'num',
  price: 'num',
  active: 'bool',
  seen_at: 'datetime',
  day: 'date',
  clock: 'time',
  wait: 'int',
  size: 'choice',
  tags: 'list-text',
  nums: 'list-int',
  meta: 'dict',
  marker: 'int',
  owner: 'int',
  owner_id: 'int',
  labels: 'to-many',
};

/** Values items are made of, and queries ask for (a few more, so that some match nothing). */
const POOLS: Readonly<Record<string, readonly unknown[]>> = {
  note: ['alpha', 'beta', 'alphabet', 'gamma', null],
  count: [-2, 0, 1, 3, 7, null],
  big: [0, 2 ** 40, -(2 ** 40), null],
  small: [-3, 0, 2, null],
  ratio: [0.5, 1.25, -2.5, 3, null],
  price: [1.1, 2, 10.55, null],
  active: [true, false, null],
  seen_at: ['2026-01-02T03:04:05Z', '2026-06-30T23:59:59Z', '2025-12-31T00:00:00Z', null],
  day: ['2026-01-02', '2026-03-15', '2024-02-29', null],
  clock: ['00:00:00', '09:30:00', '23:59:59', null],
  wait: [0, 60, 3600, null],
  size: ['s', 'm', 'l', null],
  meta: [{ a: 1 }, null],
};
const TAGS = ['red', 'green', 'blue'];
const NUMS = [1, 2, 3];
const EXTRA: Readonly<Record<string, readonly string[]>> = {
  text: ['zeta', 'c0', 'AL', 'a'],
  // None of the choices: a 400 where a filter must parse, a text to compare with where not.
  choice: ['zeta', 'S', 'a'],
  int: ['5', '-1', '99'],
  // More digits than price's scale: compared as given, never rounded first (10.55 < 10.554).
  num: ['1.10', '0', '2.0', '10.554', '1.105'],
  bool: [],
  datetime: ['2026-01-02T04:04:05+01:00', '2027-01-01T00:00:00Z'],
  date: ['2026-01-01'],
  time: ['12:00:00'],
  'list-text': ['yellow'],
  'list-int': ['9'],
  'to-many': ['0'],
  dict: ['x'],
};
const INVALID: Readonly<Record<FieldKind, readonly string[]>> = {
  text: [],
  choice: [],
  int: ['x1', '1.5'],
  num: ['one', '1e400'],
  bool: ['yes'],
  datetime: ['2026-13-01T00:00:00Z', 'soon'],
  date: ['2026-02-30', '20260101'],
  time: ['25:00:00'],
  'list-text': [],
  'list-int': ['two'],
  'to-many': ['x'],
  dict: ['x'],
};

interface World {
  readonly api: Api;
  readonly owners: number[];
  readonly labels: number[];
  /** The items as the service should have them, by code. */
  readonly items: Map<string, Rec>;
}

async function seed(api: Api): Promise<World> {
  const next = seededRandom(7);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const owners: number[] = [];
  for (const name of ['ann', 'bo', 'cy']) owners.push((await api('POST', '/owners', { name })).body.id);
  const labels: number[] = [];
  for (let i = 0; i < 10; i++) labels.push((await api('POST', '/labels', { name: `l${i}` })).body.id);
  const free = [...labels];
  const items = new Map<string, Rec>();
  for (let i = 0; i < 24; i++) {
    const body: Rec = { code: `c${String(i).padStart(2, '0')}` };
    for (const [name, pool] of Object.entries(POOLS)) body[name] = pick(pool);
    body['tags'] = TAGS.filter(() => next() < 0.4);
    body['nums'] = NUMS.filter(() => next() < 0.4);
    body['owner'] = pick([...owners, null]);
    body['labels'] = free.splice(0, Math.floor(next() * 3));
    body['marker'] = null;
    await create(api, items, body);
  }
  return { api, owners, labels, items };
}

async function create(api: Api, items: Map<string, Rec>, body: Rec): Promise<void> {
  const reply = await api('POST', '/items', body);
  if (reply.status !== 201) throw new Error(`seeding failed: ${reply.text}`);
  items.set(String(body['code']), { ...body, id: reply.body.id, owner_id: body['owner'] });
}

function texts(world: World, field: string): string[] {
  const kind = KINDS[field]!;
  const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  const pool =
    field === 'code'
      ? [...world.items.keys()]
      : field === 'id'
        ? [...world.items.values()].map((r) => String(r['id']))
        : field === 'owner' || field === 'owner_id'
          ? world.owners.map(String)
          : field === 'labels'
            ? world.labels.map(String)
            : field === 'tags'
              ? TAGS
              : field === 'nums'
                ? NUMS.map(String)
                : field === 'marker'
                  ? ['1', '2', '3']
                  : (POOLS[field] ?? []).filter((v) => v !== null && typeof v !== 'object').map(text);
  return [...pool, ...(EXTRA[kind] ?? []), 'true', 'false'].filter((t) => !t.includes(','));
}

function filterOf(world: World): fc.Arbitrary<Filter> {
  return fc.constantFrom(...Object.keys(KINDS)).chain((field) => {
    const valid = texts(world, field);
    const invalid = INVALID[KINDS[field]!];
    const value = invalid.length
      ? fc.oneof(
          { weight: 12, arbitrary: fc.constantFrom(...valid) },
          { weight: 1, arbitrary: fc.constantFrom(...invalid) },
        )
      : fc.constantFrom(...valid);
    return fc.record({
      field: fc.constant(field),
      op: fc.constantFrom(...OPERATORS),
      texts: fc.array(value, { minLength: 1, maxLength: 3 }),
      repeated: fc.boolean(),
    });
  });
}

const queryOf = (world: World) =>
  fc.uniqueArray(filterOf(world), { minLength: 1, maxLength: 3, selector: (f) => `${f.field}__${f.op}` });

const codes = (reply: { body: { data: { code: string }[] } }) => reply.body.data.map((r) => r.code).sort();
const sortedCodes = (records: readonly Rec[]) => records.map((r) => String(r['code'])).sort();

/** Everything the service holds about items, to show that a write changed nothing. */
async function dump(api: Api): Promise<unknown> {
  const reply = await api('GET', '/items?_limit=1000&_sort=code');
  return reply.body.data;
}

describe.each(ENGINES)('filters and bulk writes on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let world: World;
  let dir: string;

  beforeAll(async () => {
    dir = await builtProject('filters', 'e2e-filters');
    database = await testDatabase(engine, dir, 'filters');
    service = await startService(dir, database.env, BASE);
    world = await seed(apiClient(service.origin, BASE));
  });

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  const get = (query: string) => world.api('GET', `/items?${query}&_limit=1000&_fields=code`);
  const all = () => [...world.items.values()];
  const select = (filters: Filter[]) => expected(KINDS, all(), filters, { size: ['s', 'm', 'l'] });

  it('a list field: field=a,b and repeated values match objects holding any of them; __ne those holding none', async () => {
    for (const query of ['tags=red,blue', 'tags=red&tags=blue', 'tags__in=red,blue']) {
      const want = all().filter((r) => (r['tags'] as string[]).some((t) => t === 'red' || t === 'blue'));
      expect(codes(await get(query)), query).toEqual(sortedCodes(want));
    }
    const none = all().filter((r) => !(r['tags'] as string[]).some((t) => t === 'red' || t === 'blue'));
    expect(codes(await get('tags__ne=red,blue'))).toEqual(sortedCodes(none));
    expect((await get('tags=poetry,drama')).body.total).toBe(0);
    expect(codes(await get('nums=1,3'))).toEqual(
      sortedCodes(all().filter((r) => (r['nums'] as number[]).some((n) => n === 1 || n === 3))),
    );
  });

  it('reads a comma as a separator in a list of values, encoded or not, and as part of the value of an operator of one', async () => {
    // `title__gt=Comma%2C%20trip` was a 400 ("takes one value"): a value with a comma could be compared with nothing.
    const created = await world.api('POST', '/items', { code: 'comma', note: 'b, c', tags: ['Rome, Italy'] });
    expect(created.status).toBe(201);
    try {
      expect(codes(await get('note__gte=b%2C%20c&note__lte=b%2C%20c'))).toEqual(['comma']);
      expect(codes(await get('note__gte=b, c&note__lt=b, d'))).toEqual(['comma']);
      expect(codes(await get('note__startswith=b%2C%20'))).toEqual(['comma']);
      // As URLSearchParams and Python's requests send a list (`a%2Cb`): two values, as `a,b` is.
      expect(codes(await get('tags=Rome%2C%20Italy'))).toEqual([]);
      expect(codes(await get('code=comma%2Cc01'))).toEqual(['c01', 'comma']);
      expect((await get('note__gt=a&note__gt=b')).body.message).toContain('note__gt takes one value');
      // A bulk change selects what the GET does.
      const changed = await world.api('PATCH', '/items?note__gte=b%2C%20c&note__lte=b%2C%20c', { note: 'changed' });
      expect(changed.body.count).toBe(1);
      expect((await world.api('GET', `/items/${created.body.id}`)).body.note).toBe('changed');
    } finally {
      expect((await world.api('DELETE', `/items/${created.body.id}`)).status).toBe(200);
    }
  });

  it('takes 1,200 values of = and __ne, more than SQLite binds or nests one by one', async () => {
    const made = Array.from({ length: 1200 }, (_, i) => `z${i}`).join(',');
    const [first, second] = all().map((r) => r['code'] as string);
    expect(codes(await get(`code=${made},${first}`))).toEqual([first]);
    expect(codes(await get(`code__ne=${made},${first},${second}`))).toEqual(
      sortedCodes(all().filter((r) => r['code'] !== first && r['code'] !== second)),
    );
  });

  it('refuses a bulk change that would give the same labels (each of one item) to several items, and changes nothing', async () => {
    const before = await dump(world.api);
    const label = (await world.api('POST', '/labels', { name: 'shared' })).body.id as number;
    for (const method of ['PATCH', 'PUT']) {
      const given = await world.api(method, '/items?code=c00,c01', { labels: [label] });
      expect([given.status, given.body.errors], given.text).toEqual([
        400,
        [{ field: 'labels', message: 'each Label links to one Item: it cannot be given to 2 of them at once' }],
      ]);
    }
    expect(await dump(world.api)).toEqual(before);
    expect((await world.api('GET', `/labels/${label}`)).body.item).toBeNull();
    // To one item it is given; from many it is taken alike (nothing is given twice).
    const one = await world.api('PATCH', '/items?code=c00', { labels: [label] });
    expect([one.status, one.body.count], one.text).toEqual([200, 1]);
    expect((await world.api('GET', `/labels/${label}`)).body.item).toBe(world.items.get('c00')!['id']);
    world.items.get('c00')!['labels'] = [...(world.items.get('c00')!['labels'] as number[]), label];
  });

  it('compares a decimal with the value given, not with it rounded to the field`s scale', async () => {
    for (const [op, value] of [
      ['lt', '10.554'],
      ['gte', '10.554'],
      ['gt', '1.105'],
      ['lte', '1.095'],
    ] as const) {
      const want = select([{ field: 'price', op, texts: [value], repeated: false }]);
      expect(want).not.toEqual('error');
      expect(codes(await get(`price__${op}=${value}`)), `price__${op}=${value}`).toEqual(sortedCodes(want as Rec[]));
    }
    expect(all().some((r) => r['price'] === 10.55) && all().some((r) => r['price'] === 1.1)).toBe(true);
  });

  it('takes _sort and _fields comma-separated or repeated alike, on lists and items (as generated clients send arrays)', async () => {
    const comma = await world.api('GET', '/items?_limit=1000&_sort=-count,code&_fields=code,count');
    const repeated = await world.api('GET', '/items?_limit=1000&_sort=-count&_sort=code&_fields=code&_fields=count');
    expect([repeated.status, repeated.body.fields]).toEqual([200, 'code,count']);
    expect(repeated.body.data).toEqual(comma.body.data);
    expect(comma.body.data.length).toBeGreaterThan(1);
    const key = comma.body.data[0]._pk as string;
    const item = await world.api('GET', `/items/${key}?_fields=code&_fields=count`);
    expect([item.status, item.body]).toEqual([200, (await world.api('GET', `/items/${key}?_fields=code,count`)).body]);
    expect(Object.keys(item.body).sort()).toEqual(['_pk', '_self', '_type', 'code', 'count']);
  });

  it('a to-many relationship: labels=1,2 matches objects related to any of the keys', async () => {
    const [a, b] = world.labels;
    const want = all().filter((r) => (r['labels'] as number[]).some((l) => l === a || l === b));
    expect(want.length).toBeGreaterThan(0);
    expect(codes(await get(`labels=${a},${b}`))).toEqual(sortedCodes(want));
    expect(codes(await get(`labels=${a}&labels=${b}`))).toEqual(sortedCodes(want));
    expect(codes(await get(`labels__ne=${a},${b}`))).toEqual(sortedCodes(all().filter((r) => !want.includes(r))));
    expect(codes(await get('labels__isnull=true'))).toEqual(
      sortedCodes(all().filter((r) => (r['labels'] as number[]).length === 0)),
    );
  });

  it('takes in a body the datetimes a filter takes, the years 1-99 as written, and none outside 0001-9999 in UTC', async () => {
    const { api } = world;
    const created = await api('POST', '/items', { code: 'early', seen_at: '0001-01-01T00:00:00-01:00' });
    expect([created.status, created.body.seen_at]).toEqual([201, '0001-01-01T01:00:00Z']);
    try {
      expect(codes(await get('seen_at__lt=0002-01-01T00:00:00Z'))).toEqual(['early']);
      for (const seen of ['9999-12-31T23:59:59-01:00', '0001-01-01T00:00:00+01:00', '0000-06-01T00:00:00Z']) {
        const refused = await api('POST', '/items', { code: 'late', seen_at: seen });
        expect(refused.status, `${seen} ${refused.text}`).toBe(400);
        expect((await get(`seen_at=${encodeURIComponent(seen)}`)).status, seen).toBe(400);
      }
    } finally {
      await api('DELETE', `/items/${String(created.body._pk)}`);
    }
  });

  // Stored datetimes and times are whole seconds; a bound between two seconds was cut down to its
  // second, and `__lt=…:00.5Z` left out the objects at :00 (a probe's time windows, from toISOString()).
  it('compares a datetime or time between two whole seconds as the instant it is, with every operator', async () => {
    const { api } = world;
    const at = '2031-05-06T07:08:09Z';
    const made = await api('POST', '/items', { code: 'split', seen_at: at, clock: '07:08:09' });
    expect(made.status, made.text).toBe(201);
    const mine = async (query: string) => codes(await get(query)).includes('split');
    try {
      const half = encodeURIComponent('2031-05-06T07:08:09.5Z');
      const after = encodeURIComponent('2031-05-06T07:08:08.999Z');
      const cases: [string, boolean][] = [
        [`seen_at__lt=${half}`, true],
        [`seen_at__lte=${half}`, true],
        [`seen_at__gt=${half}`, false],
        [`seen_at__gte=${half}`, false],
        [`seen_at__gte=${after}`, true],
        [`seen_at__gt=${after}`, true],
        [`seen_at__lt=${after}`, false],
        [`seen_at=${half}`, false],
        [`seen_at=${half},${encodeURIComponent(at)}`, true],
        [`seen_at__ne=${half}`, true],
        ['clock__lt=07:08:09.25', true],
        ['clock__gte=07:08:09.25', false],
        ['clock=07:08:09.25', false],
        // A fraction of zeros is the whole second.
        [`seen_at=${encodeURIComponent('2031-05-06T07:08:09.000Z')}`, true],
      ];
      for (const [query, found] of cases) expect(await mine(query), query).toBe(found);
    } finally {
      await api('DELETE', `/items/${String(made.body._pk)}`);
    }
  });

  it('folds case beyond ASCII in __contains and __startswith (PostgreSQL: as its LC_CTYPE lower-cases)', async () => {
    const notes: Record<string, string> = { u0: 'Éclair au café', u1: 'CRÈME brûlée', u2: 'creme', u3: 'ÇA VA' };
    for (const [code, note] of Object.entries(notes))
      expect((await world.api('POST', '/items', { code, note, tags: [], nums: [] })).status).toBe(201);
    try {
      // What the engine's own lower-casing folds: SQLite and MongoDB every letter JavaScript does;
      // PostgreSQL what its LC_CTYPE does (a database made with the C locale, as the test cluster's,
      // ASCII letters only).
      const unicode =
        engine !== 'postgres' ||
        ((await querySql(engine, database.url, dir, "select lower('É') = 'é' as folds")) as { folds: boolean }[])[0]!
          .folds;
      const fold = (text: string) => (unicode ? text.toLowerCase() : text.replace(/[A-Z]/g, (c) => c.toLowerCase()));
      for (const [op, needle] of [
        ['contains', 'é'],
        ['contains', 'É'],
        ['contains', 'rè'],
        ['contains', 'ÈME'],
        ['startswith', 'ça'],
        ['startswith', 'éC'],
        ['contains', 'E'],
        ['contains', '%'],
      ] as const) {
        const want = Object.entries(notes)
          .filter(([, note]) =>
            op === 'contains' ? fold(note).includes(fold(needle)) : fold(note).startsWith(fold(needle)),
          )
          .map(([code]) => code)
          .sort();
        const query = `code__startswith=u&note__${op}=${encodeURIComponent(needle)}`;
        expect(codes(await get(query)), query).toEqual(want);
      }
      if (engine !== 'postgres')
        expect(codes(await get('code__startswith=u&note__contains=%C3%A9'))).toEqual(['u0', 'u1']);
    } finally {
      expect((await world.api('DELETE', '/items?code__startswith=u')).status).toBe(200);
    }
  });

  it.runIf(engine !== 'postgres')(
    'ignores case as MongoDB does, by Unicode case folding a letter at a time, on SQLite too',
    async () => {
      // SQLite lower-cased whole texts: "σοφίασ" missed "Σοφίας" (a final sigma), "i̇stanbul" found
      // "İstanbul" (two characters); MongoDB's regex with `i` does neither.
      const notes: Record<string, string> = {
        f0: 'İstanbul Iğdır',
        f1: 'ΣΟΦΙΑ Σοφίας',
        f2: 'Straße Müller',
        f3: '5 \u212A',
      };
      for (const [code, note] of Object.entries(notes))
        expect((await world.api('POST', '/items', { code, note, tags: [], nums: [] })).status).toBe(201);
      try {
        for (const [op, needle, want] of [
          ['contains', 'σοφίασ', ['f1']],
          ['contains', 'ΣΟΦΊΑς', ['f1']],
          ['contains', 'i\u0307stanbul', []],
          ['contains', 'istanbul', []],
          ['startswith', 'İSTANBUL', ['f0']],
          ['contains', 'STRAẞE', ['f2']],
          ['contains', 'ẞ', ['f2']],
          ['contains', 'k', ['f3']],
          ['contains', 'müller', ['f2']],
        ] as const) {
          const query = `code__startswith=f&note__${op}=${encodeURIComponent(needle)}`;
          expect(codes(await get(query)), query).toEqual(want);
        }
      } finally {
        expect((await world.api('DELETE', '/items?code__startswith=f')).status).toBe(200);
      }
    },
  );

  it('refuses, naming it, a filter it cannot apply; never drops one', async () => {
    for (const query of [
      'tags__gt=red',
      'tags__contains=re',
      'labels__lt=3',
      'meta=x',
      'count__gt=1,2',
      'count=abc',
      'nosuch=1',
      'count__near=1',
    ]) {
      const reply = await get(query);
      expect(reply.status, query).toBe(400);
      expect(reply.body.errors[0].field, query).toBe(query.split('=')[0]);
    }
    // A link's filter names what it takes: the related object's key (a probe's was "not a valid labels of Item").
    for (const [query, model] of [
      ['owner=abc', 'Owner'],
      ['labels=abc', 'Label'],
    ]) {
      const reply = await get(query!);
      expect(reply.body.errors[0].message, query).toBe(
        `"abc" is not a key of ${model!} (a whole number from -2147483648 to 2147483647)`,
      );
    }
  });

  it('takes the _pk the API returns wherever a key is written or filtered', async () => {
    const { api } = world;
    const owner = (await api('GET', `/owners/${world.owners[1]}`)).body;
    const labels = [
      (await api('POST', '/labels', { name: 'pk-a' })).body,
      (await api('POST', '/labels', { name: 'pk-b' })).body,
    ];
    expect(typeof owner._pk).toBe('string');
    const created = await api('POST', '/items', {
      code: 'pk-item',
      owner: owner._pk,
      labels: labels.map((l) => l._pk),
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ owner: owner.id, owner_id: owner.id, labels: labels.map((l) => l.id) });
    const item = created.body;
    try {
      expect(codes(await get(`owner=${owner._pk}&code=pk-item`))).toEqual(['pk-item']);
      expect(codes(await get(`labels=${labels[0]._pk}`))).toEqual(['pk-item']);
      expect((await api('GET', `/items/${item._pk}/labels`)).body.data.map((l: Rec) => l['name']).sort()).toEqual([
        'pk-a',
        'pk-b',
      ]);
      const relinked = await api('PATCH', `/labels/${labels[0]._pk}`, { item: item._pk });
      expect(relinked.status, relinked.text).toBe(200);
      expect(relinked.body.item).toBe(item.id);
      for (const [value, status] of [
        ['99999999', 400],
        ['12345678901234567890', 400],
        ['abc', 400],
        ['3.0', 400],
      ] as const) {
        const reply = await api('PATCH', `/items/${item._pk}`, { owner: value });
        expect(reply.status, `${value}: ${reply.text}`).toBe(status);
        expect(reply.body.errors[0].field).toBe('owner');
      }
      expect((await api('GET', `/items/${item._pk}`)).body.owner).toBe(owner.id);
    } finally {
      await api('DELETE', `/items/${item._pk}`);
      for (const l of labels) await api('DELETE', `/labels/${l._pk}`);
    }
  });

  it('a bulk write whose filter matches nothing writes nothing', async () => {
    const before = await dump(world.api);
    for (const query of ['tags=poetry,drama', `labels=0`, 'count__gt=1000', 'code=nobody&note=alpha']) {
      const patched = await world.api('PATCH', `/items?${query}`, { marker: 99 });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body.count).toBe(0);
      const deleted = await world.api('DELETE', `/items?${query}`);
      expect(deleted.body).toMatchObject({ count: 0, message: 'Deleted 0 Item(s) objects' });
    }
    expect(await dump(world.api)).toEqual(before);
  });

  it('a bulk write by an empty __contains or __startswith, which every text holds, or __ne, which almost every value passes, is refused', async () => {
    const before = await dump(world.api);
    for (const query of [
      'note__contains=',
      'code__startswith=',
      'count__gt=1&note__startswith=',
      'note__ne=',
      'tags__ne=',
    ]) {
      expect((await get(query)).status, query).toBe(200);
      const patched = await world.api('PATCH', `/items?${query}`, { marker: 98 });
      expect([patched.status, patched.body.errors?.[0]?.message], query).toEqual([400, 'is empty']);
      expect((await world.api('DELETE', `/items?${query}`)).status, query).toBe(400);
    }
    expect(await dump(world.api)).toEqual(before);
  });

  it('GET selects what the contract says, or answers 400; PATCH/PUT touch exactly what GET returns', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(queryOf(world), async (filters) => {
        run += 1;
        const query = queryString(filters);
        const want = select(filters);
        const read = await get(query);
        if (want === 'error') {
          expect(read.status, `${query}: ${read.text}`).toBe(400);
          const before = await dump(world.api);
          expect((await world.api('PATCH', `/items?${query}`, { marker: run })).status).toBe(400);
          expect((await world.api('DELETE', `/items?${query}`)).status).toBe(400);
          expect(await dump(world.api)).toEqual(before);
          return;
        }
        expect(read.status, `${query}: ${read.text}`).toBe(200);
        expect(codes(read), query).toEqual(sortedCodes(want));
        const before = want.length === 0 ? await dump(world.api) : undefined;
        const written = await world.api(run % 2 ? 'PATCH' : 'PUT', `/items?${query}`, { marker: run });
        expect(written.status, written.text).toBe(200);
        expect(written.body.count, query).toBe(want.length);
        for (const r of want) r['marker'] = run;
        expect(codes(await get(`marker=${run}`)), query).toEqual(sortedCodes(want));
        if (before) expect(await dump(world.api)).toEqual(before);
      }),
      { numRuns: Number(process.env.FILTER_RUNS ?? 120) },
    );
  });

  it('DELETE removes exactly what GET returns', async () => {
    await fc.assert(
      fc.asyncProperty(queryOf(world), async (filters) => {
        const query = queryString(filters);
        const want = select(filters);
        const reply = await world.api('DELETE', `/items?${query}`);
        if (want === 'error') {
          expect(reply.status, `${query}: ${reply.text}`).toBe(400);
          return;
        }
        expect(reply.status, reply.text).toBe(200);
        expect(reply.body.count, query).toBe(want.length);
        const left = all().filter((r) => !want.includes(r));
        expect(codes(await get('')), query).toEqual(sortedCodes(left));
        // Put them back (new keys; their labels were unlinked by the delete), for the next query.
        for (const r of want) {
          const { id: _id, owner_id: _fk, ...body } = r;
          world.items.delete(String(r['code']));
          await create(world.api, world.items, body);
        }
      }),
      { numRuns: Math.ceil(Number(process.env.FILTER_RUNS ?? 120) / 3) },
    );
  });
});
