/**
 * No user is named or keyed `self`: `/users/self` is the logged-in user, so such a user's `_self`
 * link named whoever followed it. A probe's admin created a user `self` through the users' route
 * (only registration refused the name), then followed its link with a DELETE, and deleted the
 * admin's own account. Refused in every write of the user model, by any caller, in any case or
 * width; a user model keyed by another text field refuses `self` as a key too.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { securedRaml, userSchema } from '../support/files.js';
import { rootAuthEnv } from '../support/library.js';
import { apiToken, memberTokens, servedApi, type ServedApi } from '../support/served.js';
import { runSql, testDatabase } from '../support/databases.js';
import { apiClient } from '../support/http.js';
import { projectOf, tool } from '../support/project.js';
import { startService } from '../support/server.js';

const ADMINS = { collection: 'allow g:admin all\nallow everyone view', item: 'allow g:admin all\nallow everyone view' };

/** A users' route with every write, keyed by `key` (the username, or a handle apart from it). */
function api(key: 'username' | 'handle', acl = ADMINS): Record<string, string> {
  const fields: Record<string, unknown> = {
    username: { type: 'string', _db_settings: { type: 'string', required: true, unique: true } },
    email: { _db_settings: { type: 'string', required: true, unique: true } },
    password: { _db_settings: { type: 'string', required: true, min_length: 8 } },
    groups: { _db_settings: { type: 'list', item_type: 'string', default: ['user'] } },
  };
  fields[key] = { type: 'string', _db_settings: { type: 'string', primary_key: true, required: true } };
  return {
    'api.raml': securedRaml(
      'Selves',
      { users_acl: acl },
      `
/users:
  securedBy: [users_acl]
  get:
  post:
    body:
      application/json:
        schema: !include user.json
  patch:
  /{${key}}:
    get:
    patch:
    put:
    delete:
`,
    ),
    'user.json': JSON.stringify({
      type: 'object',
      _auth_model: true,
      _hidden_fields: ['password'],
      properties: fields,
    }),
  };
}

/** Members make users, and change any (an API without a system user: its users are keyed by what their creator gives). */
const MEMBERS = { collection: 'allow authenticated all', item: 'allow authenticated all' };

const PASSWORD = 'password-123';
const REFUSED = 'cannot be "self" (/users/self is the logged-in user)';

describe('a user named self', () => {
  let served: ServedApi;
  let root: { headers: { authorization: string } };

  beforeAll(async () => {
    served = await servedApi(api('username'), 'e2e-self-name', { env: rootAuthEnv() });
    root = { headers: { authorization: await apiToken(served.api, 'root', 'root-password') } };
    return () => served.stop();
  }, 600_000);

  it('is made by no one: not registered, not created by an admin, in any case or width', async () => {
    for (const name of ['self', 'Self', 'ＳＥＬＦ', ' self ']) {
      const body = { username: name, email: `x${name.trim().length}@example.com`, password: PASSWORD };
      for (const made of [
        await served.api('POST', '/auth/register', body),
        await served.api('POST', '/users', body, root),
      ])
        expect([made.status, made.body.errors], made.text).toEqual([400, [{ field: 'username', message: REFUSED }]]);
    }
    expect((await served.api('GET', '/users?username=self', undefined, root)).body.total).toBe(0);
  });

  it('is no key either, and no rename makes it, where the users are keyed by another field', async () => {
    // Keyed by a handle its creator gives, the service makes no system user: members make users here.
    const { SVC_SYSTEM_USER: _user, SVC_SYSTEM_PASSWORD: _password, SVC_SYSTEM_EMAIL: _email, ...env } = rootAuthEnv();
    const handles = await servedApi(api('handle', MEMBERS), 'e2e-self-handle', { env });
    try {
      const registered = await handles.api('POST', '/auth/register', {
        handle: 'alice',
        username: 'alice',
        email: 'alice@example.com',
        password: PASSWORD,
      });
      expect(registered.status, registered.text).toBe(201);
      const alice = { headers: { authorization: await apiToken(handles.api, 'alice', PASSWORD) } };
      const made = await handles.api(
        'POST',
        '/users',
        { handle: 'SELF', username: 'carol', email: 'carol@example.com', password: PASSWORD },
        alice,
      );
      expect([made.status, made.body.errors], made.text).toEqual([400, [{ field: 'handle', message: REFUSED }]]);
      const renames = [
        await handles.api('PATCH', '/users/alice', { username: 'Self' }, alice),
        await handles.api('PUT', '/users/alice', { username: 'self', email: 'alice@example.com' }, alice),
        await handles.api('PATCH', '/users?handle=alice', { username: 'self' }, alice),
      ];
      for (const renamed of renames)
        expect([renamed.status, renamed.body.errors], renamed.text).toEqual([
          400,
          [{ field: 'username', message: REFUSED }],
        ]);
      // Still alice, and still what /users/self names.
      expect((await handles.api('GET', '/users/self', undefined, alice)).body.username).toBe('alice');
    } finally {
      await handles.stop();
    }
  }, 600_000);
});

describe('a user stored as self before such names were refused', () => {
  it('is named at every start, with how to mend it', async () => {
    const dir = await projectOf(api('username'), 'e2e-self-stored');
    const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
    expect(build.exitCode, build.all).toBe(0);
    const database = await testDatabase('sqlite', dir, 'self_stored');
    try {
      const env = { ...database.env, ...rootAuthEnv() };
      const first = await startService(dir, env, '/v1');
      const root = {
        headers: { authorization: await apiToken(apiClient(first.origin, '/v1'), 'root', 'root-password') },
      };
      const body = { username: 'alice', email: 'alice@example.com', password: PASSWORD };
      expect((await apiClient(first.origin, '/v1')('POST', '/users', body, root)).status).toBe(201);
      expect(first.output()).not.toContain('is keyed username "self"');
      await first.stop();
      // As a database made before the name was refused, or a script, left it.
      await runSql('sqlite', database.url, dir, `update "user" set "username" = 'self' where "username" = 'alice'`);
      const again = await startService(dir, env, '/v1');
      await again.stop();
      // The log's JSON escapes the quotes.
      expect(again.output()).toMatch(
        /a user is keyed username \\"self\\" \(User self\), stored before such names were refused: .*no URL names it/,
      );
    } finally {
      await database.drop();
    }
  }, 600_000);
});

describe('the links of an answer to a URL that says self', () => {
  const NOTES = securedRaml(
    'Notes',
    {
      users_acl: { collection: 'allow g:admin all', item: 'allow g:admin all\nallow authenticated view' },
      notes_acl: { collection: 'allow authenticated all', item: 'allow authenticated all' },
    },
    `
/users:
  securedBy: [users_acl]
  post:
    body:
      application/json:
        schema: !include user.json
  /{username}:
    get:
    /notes:
      securedBy: [notes_acl]
      get:
      post:
      delete:
/notes:
  securedBy: [notes_acl]
  post:
    body:
      application/json:
        schema: !include note.json
`,
  );
  const NOTE = JSON.stringify({
    type: 'object',
    properties: {
      id: { _db_settings: { type: 'id_field', primary_key: true } },
      text: { _db_settings: { type: 'string' } },
      author_username: {
        _db_settings: {
          type: 'foreign_key',
          ref_document: 'User',
          ref_column: 'user.username',
          ref_column_type: 'string',
        },
      },
    },
  });
  const USER = userSchema({
    notes: { _db_settings: { type: 'relationship', document: 'Note', backref_name: 'author' } },
  });

  it('names the caller by their key, not self, which would name whoever follows them (a probe’s admin deleted their own note)', async () => {
    const served = await servedApi({ 'api.raml': NOTES, 'user.json': USER, 'note.json': NOTE }, 'e2e-self-links', {
      env: rootAuthEnv(),
    });
    try {
      const tokens = await memberTokens(served.api, ['bob']);
      const as = (name: string) => ({ headers: { authorization: tokens.get(name)! } });
      for (const text of ['first', 'second'])
        expect((await served.api('POST', '/users/self/notes', { text }, as('bob'))).status).toBe(201);
      const made = await served.api('POST', '/users/self/notes', { text: 'third' }, as('bob'));
      expect(made.headers.get('location')).toMatch(/\/v1\/users\/bob\/notes/);
      const page = await served.api('GET', '/users/self/notes?_limit=1', undefined, as('bob'));
      const selfOf = (page.body.data as { _self: string }[])[0]!._self;
      expect(selfOf).toMatch(/\/v1\/users\/bob\/notes\?_limit=1$/);
      expect(page.body.next).toMatch(/\/v1\/users\/bob\/notes\?_limit=1&_after=/);
      // The admin follows bob's link: bob's notes, not the admin's own.
      expect((await served.api('POST', '/users/self/notes', { text: 'mine' }, as('root'))).status).toBe(201);
      const path = new URL(selfOf).pathname.replace('/v1', '');
      const deleted = await served.api('DELETE', path, undefined, as('root'));
      expect([deleted.status, deleted.body.count]).toEqual([200, 3]);
      expect((await served.api('GET', '/users/self/notes', undefined, as('root'))).body.total).toBe(1);
    } finally {
      await served.stop();
    }
  }, 600_000);
});
