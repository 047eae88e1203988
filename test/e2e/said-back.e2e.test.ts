/**
 * A change that says back the object as GET answered it: a client reads an object, changes one
 * field and sends the whole of it back (`PUT` with `{ ...item, title }`, as react-admin and most
 * hand-written front ends do). What it may not write comes along: `_type`, `_pk` and `_self`, the
 * read-only fields, a foreign key beside its link, a nested route's link to its parent, a user's own
 * `groups`. Said back unchanged, they are no write (lib/http/echoes.ts); changed, they are refused as
 * they would be alone, and a field the caller is not shown is refused whatever its value, so that
 * no guess of it is confirmed. Every engine: what GET shows (dates, decimals, lists, dicts) differs
 * in how each stores it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { securedRaml } from '../support/files.js';
import { apiClient, type Api } from '../support/http.js';
import { rootAuthEnv } from '../support/library.js';
import { projectOf, tool } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';
import { memberTokens } from '../support/served.js';

type Rec = Record<string, unknown>;

const API = securedRaml(
  'Said back',
  {
    open: {
      collection: 'allow g:admin all\nallow authenticated all',
      item: 'allow g:admin all\nallow authenticated all',
    },
    // Members may change a drop box's entries, not read them.
    drop_box: {
      collection: 'allow g:admin all',
      item: 'allow g:admin all\nallow authenticated update\ndeny everyone view',
    },
  },
  `
/users:
  securedBy: [open]
  get:
  patch:
  /{username}:
    get:
    patch:
    put:
    /notes:
      securedBy: [open]
      get:
      post:
      /{id}:
        get:
        put:
/notes:
  securedBy: [open]
  get:
  post:
    body:
      application/json:
        schema: !include note.json
  patch:
  /{id}:
    get:
    patch:
    put:
/entries:
  securedBy: [drop_box]
  get:
  post:
    body:
      application/json:
        schema: !include entry.json
  /{id}:
    get:
    patch:
/cards:
  securedBy: [open]
  get:
  post:
    body:
      application/json:
        schema: !include card.json
  /{id}:
    get:
    put:
/boards:
  securedBy: [open]
  get:
  post:
    body:
      application/json:
        schema: !include board.json
  /{id}:
    get:
    patch:
    put:
    /pins:
      securedBy: [open]
      get:
      /{pid}:
        get:
        put:
/pins:
  securedBy: [open]
  get:
  post:
    body:
      application/json:
        schema: !include pin.json
  /{id}:
    get:
    patch:
    put:
`,
);

const FILES = {
  'api.raml': API,
  'entry.json': JSON.stringify({
    type: 'object',
    title: 'Entry',
    properties: {
      id: { _db_settings: { type: 'id_field', primary_key: true } },
      text: { type: ['string', 'null'], _db_settings: { type: 'string' } },
      code: { type: ['string', 'null'], readOnly: true, _db_settings: { type: 'string' } },
    },
  }),
  // Its show handler masks the number every GET answers.
  'card.json': JSON.stringify({
    type: 'object',
    title: 'Card',
    _event_handlers: { after_show: ['mask_number'] },
    properties: {
      id: { _db_settings: { type: 'id_field', primary_key: true } },
      holder: { type: ['string', 'null'], _db_settings: { type: 'string' } },
      number: { type: ['string', 'null'], readOnly: true, _db_settings: { type: 'string' } },
    },
  }),
  // Each embeds the other side of their link: a GET shows objects where a body takes keys.
  'board.json': JSON.stringify({
    type: 'object',
    title: 'Board',
    _nested_relationships: ['pins'],
    properties: {
      id: { _db_settings: { type: 'id_field', primary_key: true } },
      name: { type: ['string', 'null'], _db_settings: { type: 'string' } },
      pins: { _db_settings: { type: 'relationship', document: 'Pin', backref_name: 'board' } },
    },
  }),
  'pin.json': JSON.stringify({
    type: 'object',
    title: 'Pin',
    _nested_relationships: ['board'],
    properties: {
      id: { _db_settings: { type: 'id_field', primary_key: true } },
      label: { type: ['string', 'null'], _db_settings: { type: 'string' } },
      board_id: {
        _db_settings: {
          type: 'foreign_key',
          ref_document: 'Board',
          ref_column: 'board.id',
          ref_column_type: 'id_field',
        },
      },
    },
  }),
  'user.json': JSON.stringify({
    type: 'object',
    title: 'User',
    required: ['username', 'email', 'password'],
    properties: {
      username: { type: 'string', _db_settings: { type: 'string', primary_key: true, min_length: 1, max_length: 50 } },
      email: { type: 'string', format: 'email', _db_settings: { type: 'string', required: true, unique: true } },
      password: { type: 'string', _db_settings: { type: 'string', required: true, min_length: 8 } },
      groups: {
        type: ['array', 'null'],
        _db_settings: { type: 'list', item_type: 'string', choices: ['admin', 'user'], default: ['user'] },
      },
      joined: { type: ['string', 'null'], readOnly: true, _db_settings: { type: 'datetime', default: '{{now}}' } },
      bio: { type: ['string', 'null'], _db_settings: { type: 'text' } },
      notes: {
        type: ['array', 'null'],
        _db_settings: { type: 'relationship', document: 'Note', backref_name: 'author' },
      },
    },
  }),
  'note.json': JSON.stringify({
    type: 'object',
    title: 'Note',
    required: ['title'],
    // Members are not shown `grade`: an admin's.
    _auth_fields: ['id', 'title', 'stamp', 'due', 'price', 'tags', 'meta', 'author', 'author_username'],
    properties: {
      id: { _db_settings: { type: 'id_field', primary_key: true } },
      title: { type: 'string', _db_settings: { type: 'string', required: true } },
      stamp: { type: ['string', 'null'], readOnly: true, _db_settings: { type: 'datetime', default: '{{now}}' } },
      due: { type: ['string', 'null'], readOnly: true, _db_settings: { type: 'date' } },
      price: { type: ['number', 'null'], readOnly: true, _db_settings: { type: 'decimal', scale: 2 } },
      tags: {
        type: ['array', 'null'],
        readOnly: true,
        _db_settings: { type: 'list', item_type: 'string', default: ['a', 'b'] },
      },
      meta: { type: ['object', 'null'], readOnly: true, _db_settings: { type: 'dict' } },
      grade: { type: ['integer', 'null'], _db_settings: { type: 'integer' } },
      author_username: {
        type: ['string', 'null'],
        _db_settings: {
          type: 'foreign_key',
          ref_document: 'User',
          ref_column: 'user.username',
          ref_column_type: 'string',
        },
      },
    },
  }),
};

/** The api.raml's users route names no schema: the users' model is user.json. */
const RAML = API.replace(
  '/users:\n  securedBy: [open]\n',
  '/users:\n  securedBy: [open]\n  post:\n    body:\n      application/json:\n        schema: !include user.json\n',
);

let dir: string;

beforeAll(async () => {
  dir = await projectOf({ ...FILES, 'api.raml': RAML }, 'e2e-said-back');
  writeFileSync(
    join(dir, 'src/custom/handlers/mask-number.ts'),
    `import type { MaskNumberEvent } from '../../events.js';

export async function maskNumber(event: MaskNumberEvent): Promise<void> {
  event.setFieldValue('number', '****');
}
`,
  );
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  expect(build.exitCode, build.all).toBe(0);
}, 600_000);

describe.each(ENGINES)('a change that says back what GET answered, on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;
  let tokens: Map<string, string>;
  let note: Rec;
  const as = (name: string) => ({ headers: { authorization: tokens.get(name)! } });
  const call = async (who: string, method: string, path: string, body?: unknown) => {
    const reply = await api(method, path, body, as(who));
    return { status: reply.status, body: reply.body as Rec, text: reply.text, etag: reply.headers.get('etag') };
  };
  const notePath = () => `/notes/${String(note['id'])}`;
  /** The note as `who`'s GET answers it. */
  const read = async (who: string, path = notePath()) => {
    const reply = await call(who, 'GET', path);
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };

  beforeAll(async () => {
    database = await testDatabase(engine, dir, 'said_back');
    service = await startService(dir, { ...database.env, ...rootAuthEnv() }, '/v1');
    api = apiClient(service.origin, '/v1');
    tokens = await memberTokens(api, ['ann', 'ben']);
    const created = await call('ann', 'POST', '/notes', { title: 'Groceries', author: 'ann' });
    expect(created.status, created.text).toBe(201);
    // The read-only fields an admin sets, of every kind whose stored form differs from its shown one.
    const set = await call('root', 'PATCH', `/notes/${String(created.body['id'])}`, {
      due: '2026-12-24',
      price: 12.5,
      meta: { shop: 'corner', aisles: [3, 1] },
      grade: 7,
    });
    expect(set.status, set.text).toBe(200);
    note = set.body;
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('takes back the whole object with one field changed, by PUT and by PATCH', async () => {
    const shown = await read('ann');
    expect(shown).toMatchObject({ due: '2026-12-24', price: 12.5, tags: ['a', 'b'], author: 'ann', _type: 'Note' });
    const put = await call('ann', 'PUT', notePath(), { ...shown, title: 'Groceries, again' });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ ...shown, title: 'Groceries, again', _self: shown['_self'] });
    const patch = await call('ann', 'PATCH', notePath(), { ...put.body, title: 'Groceries, once more' });
    expect(patch.status, patch.text).toBe(200);
    // A dict's keys in another order are the same dict; what the admin set is as it was.
    const meta = { aisles: [3, 1], shop: 'corner' };
    const reordered = await call('ann', 'PUT', notePath(), { ...patch.body, meta, title: 'Groceries' });
    expect(reordered.status, reordered.text).toBe(200);
    expect(await read('root')).toMatchObject({ title: 'Groceries', grade: 7, price: 12.5, due: '2026-12-24' });
  });

  it('takes it back with its ETag in If-Match, and through another host name', async () => {
    const reply = await call('ann', 'GET', notePath());
    const self = String(reply.body['_self']).replace('127.0.0.1', 'localhost');
    const put = await api(
      'PUT',
      notePath(),
      { ...reply.body, _self: self, title: 'Groceries' },
      {
        headers: { ...as('ann').headers, 'if-match': reply.etag! },
      },
    );
    expect(put.status, put.text).toBe(200);
  });

  it('refuses what it says back changed, as it would refuse it alone', async () => {
    const shown = await read('ann');
    const refusals: [Rec, number, string][] = [
      [{ price: 0.01 }, 403, 'price'],
      [{ tags: ['b', 'a'] }, 403, 'tags'],
      [{ meta: { shop: 'corner' } }, 403, 'meta'],
      [{ stamp: '2001-01-01T00:00:00Z' }, 403, 'stamp'],
      [{ author_username: 'ben' }, 400, 'author_username'],
      [{ _pk: '999' }, 400, '_pk'],
      [{ _type: 'User' }, 400, '_type'],
      [{ _self: String(shown['_self']).replace(/\d+$/, '999') }, 400, '_self'],
    ];
    for (const [change, status, field] of refusals) {
      const reply = await call('ann', 'PUT', notePath(), { ...shown, ...change });
      expect([reply.status, reply.text]).toEqual([status, expect.stringContaining(field)]);
    }
    expect(await read('root')).toMatchObject({ title: 'Groceries', price: 12.5, tags: ['a', 'b'] });
  });

  it('never confirms a guess of a field the caller is not shown', async () => {
    const shown = await read('ben');
    expect(shown).not.toHaveProperty('grade');
    const right = await call('ben', 'PUT', notePath(), { ...shown, grade: 7 });
    const wrong = await call('ben', 'PUT', notePath(), { ...shown, grade: 8 });
    expect(right.status, right.text).toBe(403);
    expect({ ...wrong.body, timestamp: null }).toEqual({ ...right.body, timestamp: null });
  });

  it("takes back a user's own record with its groups, and refuses a change of them", async () => {
    const own = await read('ann', '/users/self');
    expect(own).toMatchObject({ username: 'ann', groups: ['user'] });
    const put = await call('ann', 'PUT', '/users/self', { ...own, bio: 'likes lists' });
    expect(put.status, put.text).toBe(200);
    const promoted = await call('ann', 'PUT', '/users/self', { ...put.body, groups: ['admin', 'user'] });
    expect(promoted.status, promoted.text).toBe(403);
    // Another member's record, as ben is shown it (the x-ACL lets members change each other's).
    const other = await read('ben', '/users/ann');
    const changed = await call('ben', 'PUT', '/users/ann', { ...other, bio: 'changed by ben' });
    expect(changed.status, changed.text).toBe(200);
    const granted = await call('ben', 'PATCH', '/users/ann', { ...other, groups: ['admin', 'user'] });
    expect(granted.status, granted.text).toBe(403);
    expect(await read('root', '/users/ann')).toMatchObject({ groups: ['user'], bio: 'changed by ben' });
  });

  it('takes back, below a parent, the link the URL sets', async () => {
    const path = `/users/ann/notes/${String(note['id'])}`;
    const shown = await read('ann', path);
    expect(shown).toMatchObject({ author: 'ann' });
    const put = await call('ann', 'PUT', path, { ...shown, title: 'Groceries' });
    expect(put.status, put.text).toBe(200);
    const moved = await call('ann', 'PUT', path, { ...shown, author: 'ben' });
    expect(moved.status, moved.text).toBe(400);
  });

  it('compares nothing for a caller who may change the object but not read it', async () => {
    const made = await call('root', 'POST', '/entries', { text: 'sealed', code: 'hunter2' });
    expect(made.status, made.text).toBe(201);
    const path = `/entries/${String(made.body['id'])}`;
    expect((await call('ben', 'GET', path)).status).toBe(403);
    const right = await call('ben', 'PATCH', path, { code: 'hunter2' });
    const wrong = await call('ben', 'PATCH', path, { code: 'guess' });
    expect([right.status, wrong.status], right.text).toEqual([403, 403]);
    expect({ ...right.body, timestamp: null }).toEqual({ ...wrong.body, timestamp: null });
    const named = await call('ben', 'PATCH', path, { text: 'changed', _pk: String(made.body['id']) });
    expect([named.status, named.body['errors']], named.text).toEqual([
      400,
      [{ field: '_pk', message: 'is not a field here' }],
    ]);
    expect((await call('ben', 'PATCH', path, { text: 'changed' })).status).toBe(200);
  });

  it('compares only the answer names of a model whose show handlers change answers', async () => {
    const made = await call('root', 'POST', '/cards', { holder: 'ann', number: '4111' });
    expect(made.status, made.text).toBe(201);
    const path = `/cards/${String(made.body['id'])}`;
    const shown = await read('ann', path);
    expect(shown['number']).toBe('****');
    // The masked value is no echo of the stored one, nor is the stored one (that would confirm a guess).
    for (const number of ['****', '4111']) {
      const reply = await call('ann', 'PUT', path, { ...shown, number, holder: 'ann b.' });
      expect(reply.status, `${number} ${reply.text}`).toBe(403);
    }
    const { number: _number, ...rest } = shown;
    const put = await call('ann', 'PUT', path, { ...rest, holder: 'ann b.' });
    expect(put.status, put.text).toBe(200);
  });

  it('takes back the objects GET embeds for a link, and keeps the link as it is', async () => {
    const board = await call('ann', 'POST', '/boards', { name: 'Kitchen' });
    expect(board.status, board.text).toBe(201);
    const boardPath = `/boards/${String(board.body['id'])}`;
    const pinned = [];
    for (const label of ['milk', 'eggs']) {
      const pin = await call('ann', 'POST', '/pins', { label, board: board.body['id'] });
      expect(pin.status, pin.text).toBe(201);
      pinned.push(pin.body['id']);
    }
    const shown = await read('ann', boardPath);
    expect(shown['pins']).toEqual([
      expect.objectContaining({ label: 'milk' }),
      expect.objectContaining({ label: 'eggs' }),
    ]);
    // The pins said back, unchanged: the board keeps them.
    const put = await call('ann', 'PUT', boardPath, { ...shown, name: 'Kitchen wall' });
    expect(put.status, put.text).toBe(200);
    const patch = await call('ann', 'PATCH', boardPath, { ...put.body, name: 'Fridge' });
    expect(patch.status, patch.text).toBe(200);
    const after = await read('root', boardPath);
    expect([after['name'], (after['pins'] as Rec[]).map((p) => p['id'])]).toEqual(['Fridge', pinned]);
    // The one object a to-one link embeds.
    const pinPath = `/pins/${String(pinned[0])}`;
    const pin = await read('ann', pinPath);
    expect(pin['board']).toMatchObject({ id: board.body['id'], name: 'Fridge' });
    const relabelled = await call('ann', 'PUT', pinPath, { ...pin, label: 'oat milk' });
    expect(relabelled.status, relabelled.text).toBe(200);
    expect(await read('root', pinPath)).toMatchObject({ label: 'oat milk', board: { id: board.body['id'] } });
  });

  it('takes back embedded objects that say less than GET shows, read through another URL', async () => {
    const board = await call('ann', 'POST', '/boards', { name: 'Desk' });
    const pin = await call('ann', 'POST', '/pins', { label: 'stamps', board: board.body['id'] });
    expect([board.status, pin.status], pin.text).toEqual([201, 201]);
    const pinPath = `/pins/${String(pin.body['id'])}`;
    // Read from the list, whose embedded board's _self is the list's URL, and through another host name.
    const listed = (await call('ann', 'GET', `/pins?id=${String(pin.body['id'])}`)).body['data'] as Rec[];
    const fromList = listed[0]!;
    const elsewhere = { ...(fromList['board'] as Rec), _self: 'http://localhost:1/v1/boards/0' };
    const patched = await call('ann', 'PATCH', pinPath, { ...fromList, board: elsewhere, label: 'stamps, 2nd class' });
    expect(patched.status, patched.text).toBe(200);
    // Its key alone, as a field or as _pk: nothing other than GET shows.
    for (const board_ of [{ id: board.body['id'] }, { _pk: String(board.body['id']) }]) {
      const reply = await call('ann', 'PUT', pinPath, { ...fromList, board: board_ });
      expect(reply.status, reply.text).toBe(200);
    }
    // Below the board, whose link the URL sets: a PUT of what GET showed there keeps it.
    const nested = `/boards/${String(board.body['id'])}/pins/${String(pin.body['id'])}`;
    const shown = await read('ann', nested);
    const put = await call('ann', 'PUT', nested, { ...shown, label: 'stamps' });
    expect(put.status, put.text).toBe(200);
    expect(await read('root', pinPath)).toMatchObject({ label: 'stamps', board: { id: board.body['id'] } });
    // There, where the link is not the body's to write, its key alone says it back too; another is refused.
    const byKey = await call('ann', 'PUT', nested, { ...shown, board: board.body['id'], label: 'stamps, 1st class' });
    expect(byKey.status, byKey.text).toBe(200);
    const other = await call('ann', 'POST', '/boards', { name: 'Door' });
    const moved = await call('ann', 'PUT', nested, { ...shown, board: other.body['id'] });
    expect([moved.status, (moved.body['errors'] as Rec[])[0]?.['field']], moved.text).toEqual([400, 'board']);
    expect(await read('root', pinPath)).toMatchObject({ label: 'stamps, 1st class', board: { id: board.body['id'] } });
  });

  it('refuses embedded objects said back changed: a change writes links, not the objects they link to', async () => {
    const board = await call('ann', 'POST', '/boards', { name: 'Hall' });
    const pin = await call('ann', 'POST', '/pins', { label: 'keys', board: board.body['id'] });
    expect([board.status, pin.status], pin.text).toEqual([201, 201]);
    const pinPath = `/pins/${String(pin.body['id'])}`;
    const shown = await read('ann', pinPath);
    const renamed = await call('ann', 'PATCH', pinPath, {
      ...shown,
      board: { ...(shown['board'] as Rec), name: 'Porch' },
    });
    expect([renamed.status, renamed.body['errors']], renamed.text).toEqual([
      400,
      [expect.objectContaining({ field: 'board' })],
    ]);
    const boardPath = `/boards/${String(board.body['id'])}`;
    const listed = await read('ann', boardPath);
    const changed = await call('ann', 'PUT', boardPath, {
      ...listed,
      pins: [{ ...(listed['pins'] as Rec[])[0], label: 'lost' }],
    });
    expect([changed.status, changed.body['errors']], changed.text).toEqual([
      400,
      [expect.objectContaining({ field: 'pins' })],
    ]);
    // One named twice, or another one: not what GET shows either.
    const pins = listed['pins'] as Rec[];
    for (const said of [[pins[0], pins[0]], [{ id: 999_999 }]]) {
      const reply = await call('ann', 'PATCH', boardPath, { ...listed, pins: said });
      expect(reply.status, `${JSON.stringify(said)} ${reply.text}`).toBe(400);
    }
    // An object with no key names nothing: the body's schema refuses it, as before.
    const keyless = await call('ann', 'PATCH', pinPath, { board: { name: 'Hall' } });
    expect(keyless.status, keyless.text).toBe(400);
    expect(await read('root', boardPath)).toMatchObject({ name: 'Hall', pins: [{ label: 'keys' }] });
    // Keys still link: the pin moves to another board.
    const other = await call('ann', 'POST', '/boards', { name: 'Porch' });
    const moved = await call('ann', 'PATCH', pinPath, { board: other.body['id'] });
    expect(moved.status, moved.text).toBe(200);
    expect(await read('root', pinPath)).toMatchObject({ board: { id: other.body['id'], name: 'Porch' } });
  });

  it('refuses the answer names in a change of many', async () => {
    const reply = await call('root', 'PATCH', '/notes', { title: 'All', _pk: String(note['id']) });
    expect(reply.status, reply.text).toBe(400);
    expect((await read('root')).title).toBe('Groceries');
  });
});
