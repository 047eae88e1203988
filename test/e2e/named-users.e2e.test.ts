/**
 * An x-ACL line that grants to a user by name (`allow partner create`) names an account no one
 * may take by registering: before, a probe's stranger registered `partner` (a group principal
 * with its `g:` forgotten) and was let through the ACL. Only an admin creates such a user, who
 * then has what the line gives. A name with a `:` (`team:lead`) registers, and its API key,
 * written with the `:` percent-encoded, identifies it (before, the key of such a user was a 401).
 * On SQLite: what is checked is the registration route's, the same on every engine.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { testDatabase } from '../support/databases.js';
import { securedRaml } from '../support/files.js';
import { apiClient, type Api } from '../support/http.js';
import { projectOf, tool } from '../support/project.js';
import { rootAuthEnv } from '../support/library.js';
import { startService } from '../support/server.js';

const API = securedRaml(
  'Matters',
  {
    matters_acl: {
      collection: 'allow g:admin all\nallow partner create\nallow authenticated view',
      item: 'allow g:admin all\nallow authenticated view',
    },
    // Members may make users (an invitation flow): never one the x-ACLs name.
    users_acl: { collection: 'allow g:admin all\nallow authenticated create', item: 'allow g:admin all' },
  },
  `
/users:
  securedBy: [users_acl]
  post:
    body:
      application/json:
        schema: !include user.json
/matters:
  securedBy: [matters_acl]
  get:
  post:
    body:
      application/json:
        schema: !include matter.json
`,
);

const MATTER = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    title: { type: 'string', _db_settings: { type: 'string', required: true } },
  },
});

const USER = JSON.stringify({
  type: 'object',
  _auth_model: true,
  _hidden_fields: ['password'],
  properties: {
    username: { type: 'string', _db_settings: { type: 'string', primary_key: true, required: true } },
    email: { _db_settings: { type: 'string', required: true, unique: true } },
    password: { _db_settings: { type: 'string', required: true, min_length: 8 } },
    groups: { _db_settings: { type: 'list', item_type: 'string', default: ['user'] } },
  },
});

const PASSWORD = 'password-123';

describe('a user an x-ACL names', () => {
  let api: Api;
  const register = (username: string) =>
    api('POST', '/auth/register', { username, email: `${username.replace(':', '-')}@example.com`, password: PASSWORD });
  const withKey = (authorization: string) => ({ headers: { authorization } });

  beforeAll(async () => {
    const dir = await projectOf({ 'api.raml': API, 'matter.json': MATTER, 'user.json': USER }, 'e2e-named-users');
    const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
    expect(build.exitCode, build.all).toBe(0);
    const database = await testDatabase('sqlite', dir, 'named_users');
    const service = await startService(dir, { ...database.env, ...rootAuthEnv() }, '/v1');
    api = apiClient(service.origin, '/v1');
    return async () => {
      await service.stop();
      await database.drop();
    };
  }, 600_000);

  it('cannot be registered by anyone, in any case or width', async () => {
    // …nor in a form that passes for it (which would claim its plain form, and keep the admin from making it).
    for (const name of ['partner', 'Partner', 'ｐａｒｔｎｅｒ', 'p\u00e1rtner', '\u0440artner']) {
      const taken = await register(name);
      expect([taken.status, taken.body.errors], taken.text).toEqual([
        400,
        [{ field: 'username', message: 'is reserved' }],
      ]);
    }
    // Nothing was created: the name logs no one in.
    const login = await api('POST', '/auth/login', { login: 'partner', password: PASSWORD });
    expect(login.status).toBe(401);
  });

  it("is not made by a member through the users' route either, in any form that passes for it", async () => {
    const member = await register('inviter');
    expect(member.status, member.text).toBe(201);
    const key = withKey(member.headers.get('www-authenticate')!);
    for (const name of ['partner', 'p\u00e1rtner']) {
      const made = await api(
        'POST',
        '/users',
        { username: name, email: `${name}@example.net`, password: PASSWORD },
        key,
      );
      expect([made.status, made.body.errors], made.text).toEqual([
        400,
        [{ field: 'username', message: 'is reserved' }],
      ]);
    }
    // Another name, they may.
    const invited = await api(
      'POST',
      '/users',
      { username: 'guest', email: 'guest@example.net', password: PASSWORD },
      key,
    );
    expect(invited.status, invited.text).toBe(201);
  });

  it('is created by an admin, and then has what the line gives', async () => {
    const root = await api('POST', '/auth/token', { login: 'root', password: 'root-password' });
    expect(root.status, root.text).toBe(200);
    const made = await api(
      'POST',
      '/users',
      { username: 'partner', email: 'partner@example.com', password: PASSWORD },
      withKey(root.headers.get('www-authenticate')!),
    );
    expect(made.status, made.text).toBe(201);
    const partner = await api('POST', '/auth/token', { login: 'partner', password: PASSWORD });
    const opened = await api(
      'POST',
      '/matters',
      { title: 'Acme v. Roe' },
      withKey(partner.headers.get('www-authenticate')!),
    );
    expect(opened.status, opened.text).toBe(201);
    // A member the line does not name may not.
    const member = await register('associate');
    expect(member.status, member.text).toBe(201);
    const refused = await api('POST', '/matters', { title: 'mine' }, withKey(member.headers.get('www-authenticate')!));
    expect(refused.status, refused.text).toBe(403);
  });

  it("identifies a user whose name has a ':' by their API key", async () => {
    const lead = await register('team:lead');
    expect(lead.status, lead.text).toBe(201);
    const header = lead.headers.get('www-authenticate')!;
    expect(header).toMatch(/^ApiKey team%3Alead:[0-9a-f]{64}$/);
    const seen = await api('GET', '/matters', undefined, withKey(header));
    expect(seen.status, seen.text).toBe(200);
    expect((await api('GET', '/matters')).status).toBe(401);
  });
});
