/**
 * A registration that names the key column of one of the user's links (`household_id`) instead of
 * the link (`household`). A probe of a family calendar joined any household so, anonymous: the
 * registration route checked the links by their relationships' names (the household exists, the
 * newcomer may view it) and wrote the key column unchecked; every other route refuses a foreign
 * key. Now registration does too, on every engine, and nothing is created.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { securedRaml, userSchema, usersRaml } from '../support/files.js';
import { apiClient, type Api } from '../support/http.js';
import { rootAuthEnv } from '../support/library.js';
import { projectOf, tool } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const API = securedRaml(
  'Households',
  {
    admins: { collection: 'allow g:admin all', item: 'allow g:admin all' },
    users_acl: {
      collection: 'allow g:admin all\nallow authenticated view',
      item: 'allow g:admin all\nallow authenticated view, update',
    },
  },
  `
/households:
  securedBy: [admins]
  get:
  post:
    body:
      application/json:
        schema: !include household.json
  /{id}:
    get:
${usersRaml(['get', 'patch'])}`,
);

const HOUSEHOLD = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    name: { _db_settings: { type: 'string', required: true } },
    members: { _db_settings: { type: 'relationship', document: 'User', backref_name: 'household' } },
  },
});

const USER = userSchema({
  household_id: {
    _db_settings: {
      type: 'foreign_key',
      ref_document: 'Household',
      ref_column: 'household.id',
      ref_column_type: 'id_field',
    },
  },
});

const PASSWORD = 'password-123';
const REFUSED = { field: 'household_id', message: 'is a foreign key: set "household" instead' };

let dir: string;

beforeAll(async () => {
  dir = await projectOf({ 'api.raml': API, 'household.json': HOUSEHOLD, 'user.json': USER }, 'e2e-register-links');
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  expect(build.exitCode, build.all).toBe(0);
}, 600_000);

describe.each(ENGINES)('a registration that names a link by its key column, on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;
  let household: unknown;
  let rootCookie: string;
  const asRoot = (method: string, path: string, body?: unknown) =>
    api(method, path, body, { headers: { cookie: rootCookie } });
  const register = (username: string, extra: Record<string, unknown>) =>
    api('POST', '/auth/register', { username, email: `${username}@example.com`, password: PASSWORD, ...extra });

  beforeAll(async () => {
    database = await testDatabase(engine, dir, 'register_links');
    service = await startService(dir, { ...database.env, ...rootAuthEnv() }, '/v1');
    api = apiClient(service.origin, '/v1');
    const login = await api('POST', '/auth/login', { login: 'root', password: 'root-password' });
    rootCookie = /auth_tkt=[^;]*/.exec(login.headers.get('set-cookie') ?? '')![0];
    const made = await asRoot('POST', '/households', { name: 'The Smiths' });
    expect(made.status, made.text).toBe(201);
    household = made.body['id'];
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('refuses the key column with a 400 naming the link, and creates no one', async () => {
    const joined = await register('mallory', { household_id: household });
    expect([joined.status, joined.body['errors']], joined.text).toEqual([400, [REFUSED]]);
    expect((await asRoot('GET', '/users/mallory')).status).toBe(404);
    expect((await asRoot('GET', `/households/${String(household)}`)).body['members']).toEqual([]);
  });

  it('checks the link itself as before: a household the newcomer may not view does not exist for them', async () => {
    const linked = await register('mallory', { household });
    expect([linked.status, linked.body['errors']], linked.text).toEqual([
      400,
      [{ field: 'household', message: `Household ${String(household)} not found` }],
    ]);
  });

  it('refuses the key column in a member’s change of their own record too', async () => {
    const joined = await register('trudy', {});
    expect(joined.status, joined.text).toBe(201);
    const cookie = /auth_tkt=[^;]*/.exec(joined.headers.get('set-cookie') ?? '')![0];
    const patched = await api('PATCH', '/users/trudy', { household_id: household }, { headers: { cookie } });
    expect([patched.status, patched.body['errors']], patched.text).toEqual([400, [REFUSED]]);
    expect((await asRoot('GET', `/households/${String(household)}`)).body['members']).toEqual([]);
  });
});
