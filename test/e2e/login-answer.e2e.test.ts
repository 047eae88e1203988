/**
 * The login answers the user as they read themselves, their own private links included, whether
 * the request came with a cookie or not: a probe's cookie-less login answered `"submissions": []`
 * (judged as the anonymous caller the request still was), where /users/self showed `[4]`.
 * On SQLite: the answer is the auth route's, the same on every engine.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { securedRaml, userSchema, usersRaml } from '../support/files.js';
import type { Api } from '../support/http.js';
import { rootAuthEnv } from '../support/library.js';
import { servedApi } from '../support/served.js';

const API = securedRaml(
  'Drafts',
  {
    drafts_acl: {
      collection: 'allow g:admin all\nallow authenticated view, create',
      item: 'allow g:admin all\nallow {{author}} view\ndeny everyone all',
    },
    users_acl: {
      collection: 'allow g:admin all\nallow everyone view',
      item: 'allow g:admin all\nallow everyone view',
    },
  },
  `
${usersRaml()}/drafts:
  securedBy: [drafts_acl]
  get:
  post:
    body:
      application/json:
        schema: !include draft.json
  /{id}:
    get:
`,
);

const USER = userSchema({
  drafts: { _db_settings: { type: 'relationship', document: 'Draft', backref_name: 'author' } },
});

const DRAFT = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    title: { type: 'string', _db_settings: { type: 'string', required: true } },
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

const AUTHOR = `import { grant, user, type AclResult, type AclRule, type PrincipalWhere, type RequestBy } from '../../lib/auth/index.js';
import type { User } from '../../models/user.js';
import type { AuthorObject } from '../../principals.js';

export function author(request: RequestBy<User>, object: AuthorObject | undefined, rule: AclRule): AclResult {
  return request.user && object?.author === request.user.username ? grant(rule, user(request.user.username)) : undefined;
}

export function authorWhere(request: RequestBy<User>): PrincipalWhere<AuthorObject> {
  return request.user ? { author: request.user.username } : false;
}
`;

const PASSWORD = 'password-123';

describe('the login answer', () => {
  let api: Api;

  beforeAll(async () => {
    const served = await servedApi({ 'api.raml': API, 'user.json': USER, 'draft.json': DRAFT }, 'e2e-login-answer', {
      env: rootAuthEnv(),
      prepare: (dir) => writeFileSync(join(dir, 'src/custom/principals/author.ts'), AUTHOR),
    });
    api = served.api;
    return () => served.stop();
  }, 600_000);

  it("shows the user's own private links, with a cookie or without one", async () => {
    const registered = await api('POST', '/auth/register', {
      username: 'ann',
      email: 'ann@example.com',
      password: PASSWORD,
    });
    expect(registered.status, registered.text).toBe(201);
    const cookie = /(?:^|, )(auth_tkt=[^;]*)/.exec(registered.headers.get('set-cookie') ?? '')![1]!;
    const draft = await api('POST', '/drafts', { title: 'mine', author: 'ann' }, { headers: { cookie } });
    expect(draft.status, draft.text).toBe(201);
    // Hidden from anyone else: a stranger's read of ann shows no draft.
    expect((await api('GET', '/users/ann')).body['drafts']).toEqual([]);
    const withoutCookie = await api('POST', '/auth/login', { login: 'ann', password: PASSWORD });
    const withCookie = await api('POST', '/auth/login', { login: 'ann', password: PASSWORD }, { headers: { cookie } });
    const self = await api('GET', '/users/self', undefined, { headers: { cookie } });
    for (const reply of [withoutCookie, withCookie, self])
      expect([reply.status, reply.body['drafts']], reply.text).toEqual([200, [draft.body['id']]]);
  });
});
