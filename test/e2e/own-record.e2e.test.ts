/**
 * Users who may view their own record only through a `{{self}}` principal: as svcgen writes its
 * stub, it matches no one, and a fresh project's auth tests, which read `GET /users/self`, fail.
 * They said only "you may not read this object" (a probe could not tell why); they now name the
 * x-ACL and the stub to write, and pass once it is written.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { raml } from '../support/files.js';
import { projectOf, tool } from '../support/project.js';

const API = raml(`title: Members
securitySchemes:
  - ticket:
      type: x-Ticket
      settings:
        secret: auth_tkt_secret
  - members:
      type: x-ACL
      settings:
        collection: |
          allow g:admin all
        item: |
          allow g:admin all
          allow {{self}} view, update
securedBy: [ticket]
/users:
  securedBy: [members]
  get:
  post:
    body:
      application/json:
        schema: !include user.json
  /{username}:
    get:
    patch:
`);

const USER = JSON.stringify({
  type: 'object',
  _auth_model: true,
  properties: {
    username: { type: 'string', _db_settings: { type: 'string', primary_key: true, required: true, max_length: 50 } },
    email: { _db_settings: { type: 'string', required: true, unique: true } },
    password: { _db_settings: { type: 'string', required: true, min_length: 8 } },
    groups: { _db_settings: { type: 'list', item_type: 'string', default: ['user'] } },
  },
});

/** The principal as its user writes it: a user stands for their own record. */
const SELF = `import { grant, user, type AclResult, type AclRule, type PrincipalWhere, type RequestBy } from '../../lib/auth/index.js';
import type { User } from '../../models/user.js';

export function self(request: RequestBy<User>, object: User | undefined, rule: AclRule): AclResult {
  return object && request.user?.username === object.username ? grant(rule, user(object.username)) : undefined;
}

self.where = (request: RequestBy<User>, _rule: AclRule): PrincipalWhere<User> =>
  request.user ? { username: request.user.username } : false;
`;

describe('the auth tests of users who view their own record through {{self}}', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await projectOf({ 'api.raml': API, 'user.json': USER }, 'e2e-own-record');
  }, 300_000);

  it('name the stub to write while it matches no one, and pass once it is written', async () => {
    const unwritten = await tool(dir, 'vitest', ['run', 'test/auth.test.ts']);
    expect(unwritten.exitCode).not.toBe(0);
    expect(unwritten.all).toContain(
      'GET /users/self answered 403 (you may not read this object): these tests need a user to view their own record: the x-ACL "members" gives it through {{self}}, which matches no one until written (src/custom/principals/self.ts).',
    );

    writeFileSync(join(dir, 'src/custom/principals/self.ts'), SELF);
    const written = await tool(dir, 'vitest', ['run', 'test/auth.test.ts']);
    expect(written.exitCode, written.all).toBe(0);
  }, 300_000);
});
