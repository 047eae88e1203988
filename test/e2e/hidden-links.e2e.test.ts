/**
 * A link kept in the other object's row (a shelf's `books`: each book holds the shelf's key) shows
 * a member only the objects they may view, however the x-ACL decides: by a `{{principal}}` with a
 * `where` (books: the database selects them) or without one (letters: each is asked), on item and
 * list reads, write answers and the change feed; so a list of keys tells no one which private
 * objects exist, or how many (two attackers read the keys of others' private objects that way).
 * A write of such a list changes only what the member was shown: the hidden objects stay linked,
 * so a GET's answer sent back by a PUT moves nothing. Every engine.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { openFeed } from '../support/feed.js';
import { securedRaml } from '../support/files.js';
import { apiClient, type Api } from '../support/http.js';
import { rootAuthEnv } from '../support/library.js';
import { projectOf, tool } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';
import { memberTokens } from '../support/served.js';

type Rec = Record<string, unknown>;

const API = securedRaml(
  'Shelves',
  {
    shelf_acl: {
      collection: 'allow g:admin all\nallow authenticated view, create',
      item: 'allow g:admin all\nallow authenticated view, update',
    },
    book_acl: {
      collection: 'allow g:admin all\nallow authenticated view, create',
      item: 'allow g:admin all\nallow {{owner}} view, update\ndeny everyone all',
    },
    letter_acl: {
      collection: 'allow g:admin all\nallow authenticated create',
      item: 'allow g:admin all\nallow {{writer}} view, update\ndeny everyone all',
    },
  },
  `
/shelves:
  securedBy: [shelf_acl]
  get:
  post:
    body:
      application/json:
        schema: !include shelf.json
  /{id}:
    get:
    patch:
    put:
/books:
  securedBy: [book_acl]
  get:
  post:
    body:
      application/json:
        schema: !include book.json
  /{id}:
    get:
    patch:
/letters:
  securedBy: [letter_acl]
  post:
    body:
      application/json:
        schema: !include letter.json
  /{id}:
    get:
    patch:
`,
);

const id = { _db_settings: { type: 'id_field', primary_key: true } };
const text = (required = false) => ({ type: 'string', _db_settings: { type: 'string', required } });
const shelfKey = {
  _db_settings: { type: 'foreign_key', ref_document: 'Shelf', ref_column: 'shelf.id', ref_column_type: 'id_field' },
};

const FILES = {
  'api.raml': API,
  'shelf.json': JSON.stringify({
    type: 'object',
    _event_previous: true,
    properties: {
      id,
      name: text(true),
      books: { _db_settings: { type: 'relationship', document: 'Book', backref_name: 'shelf' } },
      letters: { _db_settings: { type: 'relationship', document: 'Letter', backref_name: 'shelf' } },
    },
  }),
  'book.json': JSON.stringify({
    type: 'object',
    properties: { id, title: text(true), owner: text(), shelf_id: shelfKey },
  }),
  'letter.json': JSON.stringify({
    type: 'object',
    properties: { id, body: text(true), writer: text(), shelf_id: shelfKey },
  }),
};

const USERNAME = `const username = (request: FastifyRequest) =>
  typeof request.user?.['username'] === 'string' ? request.user['username'] : null;`;

/** `{{owner}}`, with the books it gives the caller as a condition. */
const OWNER = `import type { FastifyRequest } from 'fastify';
import { grant, user, type AclResult, type AclRule, type PrincipalWhere } from '../../lib/auth/index.js';
import type { Book } from '../../models/book.js';

${USERNAME}

export function owner(_request: FastifyRequest, object: Book | undefined, rule: AclRule): AclResult {
  return object?.owner != null ? grant(rule, user(object.owner)) : undefined;
}

owner.where = (request: FastifyRequest): PrincipalWhere<Book> => {
  const me = username(request);
  return me === null ? false : { owner: me };
};
`;

/** `{{writer}}`, without a condition: each letter is asked. */
const WRITER = `import type { FastifyRequest } from 'fastify';
import { grant, user, type AclResult, type AclRule } from '../../lib/auth/index.js';
import type { Letter } from '../../models/letter.js';

export function writer(_request: FastifyRequest, object: Letter | undefined, rule: AclRule): AclResult {
  return object?.writer != null ? grant(rule, user(object.writer)) : undefined;
}
`;

let dir: string;

beforeAll(async () => {
  dir = await projectOf(FILES, 'e2e-hidden-links');
  writeFileSync(join(dir, 'src/custom/principals/owner.ts'), OWNER);
  writeFileSync(join(dir, 'src/custom/principals/writer.ts'), WRITER);
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  expect(build.exitCode, build.all).toBe(0);
}, 600_000);

describe.each(ENGINES)('links to objects a member may not view, on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;
  let tokens: Map<string, string>;
  let shelf: unknown;
  const books: Record<string, unknown> = {};
  const letters: Record<string, unknown> = {};
  const as = (name: string) => ({ headers: { authorization: tokens.get(name)! } });
  const sorted = (keys: unknown) => (keys as unknown[]).map(String).sort();
  const keysOf = (named: Record<string, unknown>, ...names: string[]) => names.map((n) => String(named[n])).sort();
  const read = async (who: string) => {
    const reply = await api('GET', `/shelves/${String(shelf)}`, undefined, as(who));
    expect(reply.status, reply.text).toBe(200);
    return { books: sorted(reply.body['books']), letters: sorted(reply.body['letters']) };
  };

  beforeAll(async () => {
    database = await testDatabase(engine, dir, 'hidden_links');
    service = await startService(dir, { ...database.env, ...rootAuthEnv() }, '/v1');
    api = apiClient(service.origin, '/v1');
    tokens = await memberTokens(api, ['mia', 'zoe']);
    shelf = (await api('POST', '/shelves', { name: 'Shared' }, as('root'))).body['id'];
    for (const who of ['mia', 'zoe']) {
      const book = await api('POST', '/books', { title: `${who}'s diary`, owner: who, shelf }, as('root'));
      expect(book.status, book.text).toBe(201);
      books[who] = book.body['id'];
      const letter = await api('POST', '/letters', { body: `from ${who}`, writer: who, shelf }, as('root'));
      expect(letter.status, letter.text).toBe(201);
      letters[who] = letter.body['id'];
    }
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('shows each member the keys of the objects they may view alone, on item and list reads', async () => {
    expect(await read('root')).toEqual({
      books: keysOf(books, 'mia', 'zoe'),
      letters: keysOf(letters, 'mia', 'zoe'),
    });
    expect(await read('mia')).toEqual({ books: keysOf(books, 'mia'), letters: keysOf(letters, 'mia') });
    expect(await read('zoe')).toEqual({ books: keysOf(books, 'zoe'), letters: keysOf(letters, 'zoe') });
    const listed = await api('GET', '/shelves', undefined, as('mia'));
    expect(listed.status, listed.text).toBe(200);
    expect(sorted(listed.body.data[0]['books'])).toEqual(keysOf(books, 'mia'));
    expect(sorted(listed.body.data[0]['letters'])).toEqual(keysOf(letters, 'mia'));
    // The keys mia is not shown are those her own GET of them refuses.
    expect((await api('GET', `/books/${String(books['zoe'])}`, undefined, as('mia'))).status).toBe(403);
    expect((await api('GET', `/letters/${String(letters['zoe'])}`, undefined, as('mia'))).status).toBe(403);
  });

  it('filters by such links only through the objects she may view', async () => {
    const total = async (query: string, who: string) => {
      const reply = await api('GET', `/shelves?${query}`, undefined, as(who));
      expect(reply.status, reply.text).toBe(200);
      return reply.body['total'];
    };
    expect(await total(`books=${String(books['zoe'])}`, 'root')).toBe(1);
    expect(await total(`books=${String(books['zoe'])}`, 'mia')).toBe(0);
    expect(await total(`books=${String(books['mia'])}`, 'mia')).toBe(1);
    const counted = await api('GET', `/shelves?books=${String(books['zoe'])}&_count`, undefined, as('mia'));
    expect(counted.body).toEqual({ count: 0 });
    // Letters are decided one at a time: no filter can ask the database which she may view.
    const refused = await api('GET', `/shelves?letters=${String(letters['zoe'])}`, undefined, as('mia'));
    expect([refused.status, refused.body.errors], refused.text).toEqual([
      400,
      [{ field: 'letters', message: 'whether you may view each Letter is decided one at a time' }],
    ]);
  });

  it('keeps the hidden objects linked when a member writes the list she was shown, and tags what she sees', async () => {
    const before = await api('GET', `/shelves/${String(shelf)}`, undefined, as('mia'));
    // Her own letter taken off the shelf, her book kept: zoe's stay where they are.
    const patched = await api(
      'PATCH',
      `/shelves/${String(shelf)}`,
      { books: [books['mia']], letters: [] },
      { headers: { ...as('mia').headers, 'if-match': before.headers.get('etag')! } },
    );
    expect(patched.status, patched.text).toBe(200);
    expect([sorted(patched.body['books']), sorted(patched.body['letters'])]).toEqual([keysOf(books, 'mia'), []]);
    expect(await read('root')).toEqual({ books: keysOf(books, 'mia', 'zoe'), letters: keysOf(letters, 'zoe') });

    // A PUT leaves links kept in the other objects' rows as they are when it leaves them out.
    const kept = await api('PUT', `/shelves/${String(shelf)}`, { name: 'Shared' }, as('mia'));
    expect(kept.status, kept.text).toBe(200);
    expect(await read('root')).toEqual({ books: keysOf(books, 'mia', 'zoe'), letters: keysOf(letters, 'zoe') });
    // Emptied, of what she may see.
    const put = await api('PUT', `/shelves/${String(shelf)}`, { name: 'Shared', books: [], letters: [] }, as('mia'));
    expect(put.status, put.text).toBe(200);
    expect([put.body['books'], put.body['letters']]).toEqual([[], []]);
    expect(await read('root')).toEqual({ books: keysOf(books, 'zoe'), letters: keysOf(letters, 'zoe') });

    // Linked to zoe's book alone: to mia, a shelf without books.
    const shelves = async (query: string, who: string) =>
      (await api('GET', `/shelves?${query}`, undefined, as(who))).body['total'];
    expect([await shelves('books__isnull=true', 'mia'), await shelves('books__isnull=false', 'mia')]).toEqual([1, 0]);
    expect([await shelves('books__isnull=true', 'root'), await shelves('books__isnull=false', 'root')]).toEqual([0, 1]);

    // Naming a hidden object is naming one that does not exist, as before.
    const named = await api('PATCH', `/shelves/${String(shelf)}`, { books: [books['zoe']] }, as('mia'));
    expect(named.status, named.text).toBe(400);
  });

  // A probe told them apart: a missing key was listed with the others, a hidden one alone, one
  // already linked to the written object before any other.
  it('answers keys that are hidden, linked or not, and keys that do not exist alike: all of them, in one 400', async () => {
    const other = await api('POST', '/shelves', { name: 'Other' }, as('root'));
    const hiddenElsewhere = await api(
      'POST',
      '/books',
      { title: 'zoe, elsewhere', owner: 'zoe', shelf: other.body['id'] },
      as('root'),
    );
    const hiddenHere = books['zoe'];
    const before = await read('root');
    const elsewhere = hiddenElsewhere.body['id'];
    const write = (keys: unknown[]) =>
      api('PATCH', `/shelves/${String(shelf)}`, { books: [books['mia'], ...keys] }, as('mia'));
    const cases: [unknown[], unknown[]][] = [
      [
        [999_998, 999_999],
        [999_998, 999_999],
      ],
      [
        [elsewhere, 999_999],
        [elsewhere, 999_999],
      ],
      [
        [999_999, hiddenHere],
        [999_999, hiddenHere],
      ],
      [
        [elsewhere, hiddenHere],
        [elsewhere, hiddenHere],
      ],
      [
        [hiddenHere, elsewhere],
        [hiddenHere, elsewhere],
      ],
    ];
    for (const [keys, named] of cases) {
      const reply = await write(keys);
      expect([reply.status, reply.body.message], JSON.stringify(keys)).toEqual([
        400,
        `books: Book ${named.map(String).join(', ')} not found`,
      ]);
    }
    // A create names them alike.
    const created = await api('POST', '/shelves', { name: 'New', books: [elsewhere, 999_999] }, as('mia'));
    expect([created.status, created.body.message]).toEqual([400, `books: Book ${String(elsewhere)}, 999999 not found`]);
    expect(await read('root')).toEqual(before);
  });

  it.runIf(engine === 'sqlite')('shows a member, in the change feed, only the links she may view', async () => {
    const feed = await openFeed(`${service.origin}/v1/_events?types=Shelf.update`, {
      authorization: tokens.get('mia')!,
    });
    try {
      expect(feed.status).toBe(200);
      const relink = async (body: Rec) =>
        expect((await api('PATCH', `/shelves/${String(shelf)}`, body, as('root'))).status).toBe(200);
      // Zoe's book taken off the shelf: no change mia may see, so no event of hers (it would tell
      // her when a hidden link moved). Then mia's put back: the first event she is sent.
      await relink({ books: [] });
      await relink({ books: [books['mia']] });
      await feed.until((messages) => messages.length >= 1);
      const [shownMove] = feed.messages.map((m) => JSON.parse(m.data).data as Rec);
      expect(shownMove!['object']).toMatchObject({ books: [books['mia']] });
      expect(shownMove!['previous']).toMatchObject({ books: [] });
      expect(shownMove!['changed']).toEqual(['books']);
    } finally {
      feed.close();
    }
  });
});
