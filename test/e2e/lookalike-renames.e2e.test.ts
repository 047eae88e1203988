/**
 * A username that passes for another's is refused whichever came first, when the user model is
 * keyed by an id and names change: a rename claims the new name's plain form and frees the old
 * one, in an item PATCH and in a collection PATCH alike (lib/auth/login-names.ts). Before, a new
 * `joé` was refused beside `joe`, but a new `joe` beside `joé` went through, and two registered at
 * the same moment both did.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { securedRaml } from '../support/files.js';
import { apiClient, type Api } from '../support/http.js';
import { rootAuthEnv } from '../support/library.js';
import { projectOf, tool } from '../support/project.js';
import { apiToken } from '../support/served.js';
import { startService, type RunningService } from '../support/server.js';

const API = securedRaml(
  'Handles',
  {
    users_acl: {
      collection: 'allow g:admin all\nallow everyone view',
      // Members may change users' names (their own, in the test of retired names).
      item: 'allow g:admin all\nallow everyone view\nallow authenticated update',
    },
  },
  `
/users:
  securedBy: [users_acl]
  get:
  post:
    body:
      application/json:
        schema: !include user.json
  patch:
  /{id}:
    get:
    patch:
`,
);

const USER = JSON.stringify({
  type: 'object',
  _auth_model: true,
  _hidden_fields: ['password'],
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    username: { type: 'string', _db_settings: { type: 'string', required: true, unique: true } },
    email: { _db_settings: { type: 'string', required: true, unique: true } },
    password: { _db_settings: { type: 'string', required: true, min_length: 8 } },
    groups: { _db_settings: { type: 'list', item_type: 'string', default: ['user'] } },
  },
});

const PASSWORD = 'password-123';
const TAKEN = (plain: string) => [
  { field: 'username', message: `passes for "${plain}", as the name of an existing user does` },
];
const RETIRED = [
  {
    field: 'username',
    message: 'was the name of an account that was deleted or renamed, which objects may still name',
  },
];

let dir: string;

beforeAll(async () => {
  dir = await projectOf({ 'api.raml': API, 'user.json': USER }, 'e2e-lookalike-renames');
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  expect(build.exitCode, build.all).toBe(0);
}, 600_000);

describe.each(ENGINES)('usernames that pass for one another, renamed, on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;
  let root: { headers: { authorization: string } };
  let emails = 0;

  const register = (username: string) =>
    api('POST', '/auth/register', { username, email: `u${++emails}@example.com`, password: PASSWORD });
  const rename = (id: unknown, username: string) => api('PATCH', `/users/${String(id)}`, { username }, root);

  beforeAll(async () => {
    database = await testDatabase(engine, dir, 'lookalike_renames');
    service = await startService(dir, { ...database.env, ...rootAuthEnv() }, '/v1');
    api = apiClient(service.origin, '/v1');
    root = { headers: { authorization: await apiToken(api, 'root', 'root-password') } };
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('lets a user take an accented form of their own name, and frees the old form once they leave it', async () => {
    const mika = (await register('mika')).body;
    const nika = (await register('nika')).body;
    expect([mika['username'], nika['username']]).toEqual(['mika', 'nika']);
    // Their own name, written with an accent: theirs.
    const accented = await rename(mika['id'], 'mik\u00e0');
    expect([accented.status, accented.body['username']], accented.text).toEqual([200, 'mik\u00e0']);
    // Another user may take neither form, nor register it.
    for (const name of ['mika', 'm\u00edka']) {
      const taken = await rename(nika['id'], name);
      expect([taken.status, taken.body.errors], taken.text).toEqual([409, TAKEN('mika')]);
    }
    expect((await register('mika')).status).toBe(409);
    // Nor through a PATCH of the collection.
    const bulk = await api('PATCH', '/users?username=nika', { username: 'mik\u00e4' }, root);
    expect([bulk.status, bulk.body.errors], bulk.text).toEqual([409, TAKEN('mika')]);
    // Once mikà is zed, mika is free for nika.
    expect((await rename(mika['id'], 'zed')).status).toBe(200);
    const freed = await rename(nika['id'], 'mika');
    expect([freed.status, freed.body['username']], freed.text).toEqual([200, 'mika']);
    // And zed's form is zed's: a zéd is refused.
    expect((await register('z\u00e9d')).status).toBe(409);
    // A change of a user's other fields, the name sent as it is, goes through.
    const kept = await api(
      'PATCH',
      `/users/${String(freed.body['id'])}`,
      { username: 'mika', email: 'mika@example.com' },
      root,
    );
    expect(kept.status, kept.text).toBe(200);
  });

  // A probe's 20 registrations of one name at once on PostgreSQL: the losers of the race for the
  // name's claim were told the name passed for itself ("passes for racer_4, as the name of an
  // existing user does"), the others that it was taken.
  it('tells every loser of a race for one name that it is taken, whichever way it lost', async () => {
    for (let round = 0; round < 4; round++) {
      const name = `racer${round}`;
      const replies = await Promise.all(Array.from({ length: 12 }, () => register(name)));
      expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
      for (const lost of replies.filter((r) => r.status !== 201))
        expect([lost.status, lost.body.message], lost.text).toEqual([
          409,
          'username must be unique, and the value is taken',
        ]);
    }
  });

  it('keeps a member from renaming themself to a name another account left, which an admin gives', async () => {
    const ola = (await register('ola')).body;
    const ivo = (await register('ivo')).body;
    expect((await rename(ola['id'], 'olga')).status).toBe(200);
    // Objects may still name ola (a message's recipient read by an x-ACL): ivo may not become her.
    const member = { headers: { authorization: await apiToken(api, 'ivo', PASSWORD) } };
    for (const name of ['ola', 'OLA']) {
      const taken = await api('PATCH', `/users/${String(ivo['id'])}`, { username: name }, member);
      expect([taken.status, taken.body.errors], taken.text).toEqual([409, RETIRED]);
    }
    expect((await api('GET', `/users/${String(ivo['id'])}`, undefined, member)).body['username']).toBe('ivo');
    // A name no account ever had is ivo's to take; the admin gives ola.
    const other = await api('PATCH', `/users/${String(ivo['id'])}`, { username: 'ivan' }, member);
    expect([other.status, other.body['username']], other.text).toEqual([200, 'ivan']);
    const given = await rename(ivo['id'], 'ola');
    expect([given.status, given.body['username']], given.text).toEqual([200, 'ola']);
  });
});
