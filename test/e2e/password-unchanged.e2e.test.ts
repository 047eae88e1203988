/**
 * With `auth.require_current_password = false`, a member's PUT of their own record that sends their
 * password as it is changes nothing, as it does with the proof asked for: the stored hash is kept,
 * and with it their sessions. A re-attacker's PUT re-hashed it and logged them out everywhere.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { securedRaml, userSchema } from '../support/files.js';
import { MEMBER_PASSWORD, rootAuthEnv } from '../support/library.js';
import { memberTokens, servedApi, type ServedApi } from '../support/served.js';

const API = securedRaml(
  'Members',
  { users_acl: { collection: 'allow g:admin all', item: 'allow g:admin all\nallow authenticated view, update' } },
  `
/users:
  securedBy: [users_acl]
  post:
    body:
      application/json:
        schema: !include user.json
  /{username}:
    get:
    put:
`,
);

describe('a password sent as it is, with no proof asked for', () => {
  let served: ServedApi;
  let tokens: Map<string, string>;

  beforeAll(async () => {
    served = await servedApi({ 'api.raml': API, 'user.json': userSchema() }, 'e2e-password-unchanged', {
      env: { ...rootAuthEnv(), SVC_AUTH_REQUIRE_CURRENT_PASSWORD: 'false' },
    });
    tokens = await memberTokens(served.api, ['alice']);
    return () => served.stop();
  }, 600_000);

  it('changes nothing, and the sessions stay; a new one ends them', async () => {
    const alice = { headers: { authorization: tokens.get('alice')! } };
    const record = { username: 'alice', email: 'alice@example.com' };
    const same = await served.api('PUT', '/users/alice', { ...record, password: MEMBER_PASSWORD }, alice);
    expect(same.status, same.text).toBe(200);
    expect((await served.api('GET', '/users/self', undefined, alice)).status).toBe(200);
    const changed = await served.api('PUT', '/users/alice', { ...record, password: 'a-new-password-1' }, alice);
    expect(changed.status, changed.text).toBe(200);
    expect((await served.api('GET', '/users/self', undefined, alice)).status).toBe(401);
    const login = await served.api('POST', '/auth/login', { login: 'alice', password: 'a-new-password-1' });
    expect(login.status).toBe(200);
  });
});
