/**
 * Users who may view their own record only through a `{{self}}` principal, which matches no one
 * as svcgen stubs it. `GET /users/self` is the caller all the same (the contract: "the current
 * user, 401 when anonymous"), so a fresh project's auth tests pass; it was a 403, and they failed
 * until the principal was written. `GET /users/<their name>` follows the x-ACL.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { raml } from '../support/files.js';
import { apiClient, type Reply } from '../support/http.js';
import { projectOf, tool } from '../support/project.js';
import { startService } from '../support/server.js';

const cookieOf = (reply: Reply) => (reply.headers.get('set-cookie') ?? '').split(';')[0]!;

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

describe('users who view their own record through {{self}}, not written yet', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await projectOf({ 'api.raml': API, 'user.json': USER }, 'e2e-own-record');
  }, 300_000);

  it('read themselves at /users/self, and the auth tests pass', async () => {
    const tests = await tool(dir, 'vitest', ['run', 'test/auth.test.ts']);
    expect(tests.exitCode, tests.all).toBe(0);
  }, 300_000);

  it('are refused their record by name, and /users/self changes nothing, until the principal is written', async () => {
    const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
    expect(build.exitCode, build.all).toBe(0);
    const service = await startService(
      dir,
      {
        SVC_AUTH: 'true',
        SVC_AUTH_TKT_SECRET: 's'.repeat(40),
        SVC_DATABASE_URL: 'sqlite::memory:',
        SVC_AUTH_HIDE_REFUSED: 'true',
      },
      '',
    );
    try {
      const api = apiClient(service.origin, '');
      const registered = await api('POST', '/auth/register', {
        username: 'maria',
        email: 'maria@example.com',
        password: 'correct horse battery',
      });
      expect(registered.status).toBe(201);
      const as = { headers: { cookie: cookieOf(registered) } };
      const self = await api('GET', '/users/self', undefined, as);
      expect([self.status, self.body.username, self.body.password]).toEqual([200, 'maria', undefined]);
      // By name, the x-ACL decides (and auth.hide_refused answers a record one may not view as missing).
      expect((await api('GET', '/users/maria', undefined, as)).status).toBe(404);
      // Only reading is the contract's: a change of oneself follows the x-ACL, whatever the URL; at
      // /users/self a 403, never a 404 for the caller it always shows.
      expect((await api('PATCH', '/users/self', { email: 'm@example.com' }, as)).status).toBe(403);
      expect((await api('GET', '/users/self')).status).toBe(401);
    } finally {
      await service.stop();
    }
    writeFileSync(join(dir, 'src/custom/principals/self.ts'), SELF);
    const written = await tool(dir, 'vitest', ['run', 'test/auth.test.ts']);
    expect(written.exitCode, written.all).toBe(0);
  }, 300_000);
});
