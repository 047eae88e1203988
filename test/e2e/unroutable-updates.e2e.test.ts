/**
 * Objects of a model that no route updates (a settlement served with GET, POST and DELETE only)
 * are not changed by a link written from another model's side either, but by an admin. A probe's
 * member once re-pointed a settlement at himself through `PATCH /users/{username}` of its backref
 * (`received`): the x-ACL, shared with a model that has a PATCH, granted `update`, and the
 * settlement's create-time checks never ran again. A model with a PATCH route (notes) still moves
 * by its x-ACL, as before. SQLite, auth on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { securedRaml } from '../support/files.js';
import type { Api } from '../support/http.js';
import { rootAuthEnv } from '../support/library.js';
import { memberTokens, servedApi, type ServedApi } from '../support/served.js';

const API = securedRaml(
  'Ledger',
  {
    members_acl: {
      collection: 'allow g:admin all\nallow authenticated all',
      item: 'allow g:admin all\nallow authenticated all',
    },
  },
  `
/users:
  securedBy: [members_acl]
  get:
  post:
    body:
      application/json:
        schema: !include user.json
  /{username}:
    get:
    patch:
/settlements:
  securedBy: [members_acl]
  get:
  post:
    body:
      application/json:
        schema: !include settlement.json
  /{id}:
    get:
    delete:
/notes:
  securedBy: [members_acl]
  get:
  post:
    body:
      application/json:
        schema: !include note.json
  /{id}:
    get:
    patch:
`,
);

/** A foreign key to a user, by username. */
const USER_KEY = {
  _db_settings: { type: 'foreign_key', ref_document: 'User', ref_column: 'user.username', ref_column_type: 'string' },
};

const FILES = {
  'api.raml': API,
  'user.json': JSON.stringify({
    type: 'object',
    _auth_model: true,
    properties: {
      username: { type: 'string', _db_settings: { type: 'string', primary_key: true, required: true } },
      email: { _db_settings: { type: 'string', required: true, unique: true } },
      password: { _db_settings: { type: 'string', required: true, min_length: 8 } },
      groups: { _db_settings: { type: 'list', item_type: 'string', default: ['user'] } },
      received: { _db_settings: { type: 'relationship', document: 'Settlement', backref_name: 'to' } },
      notes: { _db_settings: { type: 'relationship', document: 'Note', backref_name: 'author' } },
    },
  }),
  'settlement.json': JSON.stringify({
    type: 'object',
    properties: {
      id: { _db_settings: { type: 'id_field', primary_key: true } },
      amount: { _db_settings: { type: 'integer', required: true } },
      to_username: USER_KEY,
    },
  }),
  'note.json': JSON.stringify({
    type: 'object',
    properties: {
      id: { _db_settings: { type: 'id_field', primary_key: true } },
      text: { _db_settings: { type: 'string', required: true } },
      author_username: USER_KEY,
    },
  }),
};

describe('a link written from the other side, to a model no route updates', () => {
  let served: ServedApi;
  let tokens: Map<string, string>;
  const api: Api = (...args) => served.api(...args);
  const as = (name: string) => ({ headers: { authorization: tokens.get(name)! } });

  beforeAll(async () => {
    served = await servedApi(FILES, 'e2e-unroutable-updates', { env: rootAuthEnv() });
    tokens = await memberTokens(api, ['carol', 'eve']);
  }, 600_000);

  afterAll(() => served?.stop());

  it('is refused to a member, with nothing changed, though the x-ACL grants update', async () => {
    const paid = await api('POST', '/settlements', { amount: 10, to: 'eve' }, as('carol'));
    expect(paid.status, paid.text).toBe(201);
    expect((await api('PATCH', `/settlements/${paid.body.id}`, { to: 'carol' }, as('carol'))).status).toBe(405);
    const taken = await api('PATCH', '/users/carol', { received: [paid.body.id] }, as('carol'));
    expect([taken.status, taken.body.message], taken.text).toEqual([
      403,
      `you may not change Settlement ${paid.body.id}, which this write would link or unlink`,
    ]);
    const stored = await api('GET', `/settlements/${paid.body.id}`, undefined, as('root'));
    expect(stored.body.to).toBe('eve');
    // Nor by giving up one's own: eve may not unlink hers either.
    const dropped = await api('PATCH', '/users/eve', { received: [] }, as('eve'));
    expect(dropped.status, dropped.text).toBe(403);
    expect((await api('GET', `/settlements/${paid.body.id}`, undefined, as('root'))).body.to).toBe('eve');
  });

  it('is an admin`s to make', async () => {
    const paid = await api('POST', '/settlements', { amount: 5, to: 'eve' }, as('eve'));
    const moved = await api('PATCH', '/users/carol', { received: [paid.body.id] }, as('root'));
    expect(moved.status, moved.text).toBe(200);
    expect((await api('GET', `/settlements/${paid.body.id}`, undefined, as('root'))).body.to).toBe('carol');
  });

  it('still moves what a route updates, by its x-ACL', async () => {
    const note = await api('POST', '/notes', { text: 'hers', author: 'eve' }, as('eve'));
    expect(note.status, note.text).toBe(201);
    const moved = await api('PATCH', '/users/carol', { notes: [note.body.id] }, as('carol'));
    expect(moved.status, moved.text).toBe(200);
    expect((await api('GET', `/notes/${note.body.id}`, undefined, as('root'))).body.author).toBe('carol');
  });
});
