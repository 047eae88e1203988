/**
 * Users made while auth is off are stored as auth on would store them: usernames and emails in
 * their login forms (lower case, NFKC), lookalike mixes refused. They were stored as sent: a
 * probe made `ALICE` beside `alice`, and `bob` with the email `ALICE@example.com`; once auth was
 * on, `ALICE` could never log in (a login names `alice`), nor bob by his email. SQLite.
 */
import { describe, expect, it } from 'vitest';
import { securedRaml, userSchema, usersRaml } from '../support/files.js';
import { rootAuthEnv } from '../support/library.js';
import { testDatabase } from '../support/databases.js';
import { apiClient } from '../support/http.js';
import { projectOf, tool } from '../support/project.js';
import { startService } from '../support/server.js';

const FILES = {
  'api.raml': securedRaml(
    'Users',
    { users_acl: { collection: 'allow g:admin all', item: 'allow g:admin all' } },
    `
${usersRaml()}`,
  ),
  'user.json': userSchema(),
};
const PASSWORD = 'password-123';

describe('users made with auth off', () => {
  it('are stored in their login forms, and log in by them once auth is on', async () => {
    const dir = await projectOf(FILES, 'e2e-auth-off-users');
    const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
    expect(build.exitCode, build.all).toBe(0);
    const database = await testDatabase('sqlite', dir, 'auth_off_users');
    try {
      const off = await startService(dir, { ...database.env, SVC_AUTH: 'false' }, '/v1');
      const api = apiClient(off.origin, '/v1');
      const made = await api('POST', '/users', { username: 'ALICE', email: 'Alice@Example.COM', password: PASSWORD });
      expect([made.status, made.body.username, made.body.email], made.text).toEqual([
        201,
        'alice',
        'alice@example.com',
      ]);
      // The same login in another case is the same user: the unique username's and email's 409.
      expect(
        (await api('POST', '/users', { username: 'alice', email: 'a2@example.com', password: PASSWORD })).status,
      ).toBe(409);
      expect(
        (await api('POST', '/users', { username: 'bob', email: 'ALICE@example.com', password: PASSWORD })).status,
      ).toBe(409);
      const mixed = await api('POST', '/users', { username: '\u0430lice', email: 'c@example.com', password: PASSWORD });
      expect([mixed.status, mixed.body.errors?.[0]?.field], mixed.text).toEqual([400, 'username']);
      await off.stop();

      const on = await startService(dir, { ...database.env, ...rootAuthEnv() }, '/v1');
      try {
        const login = apiClient(on.origin, '/v1');
        for (const name of ['ALICE', 'alice', 'ALICE@example.com'])
          expect((await login('POST', '/auth/login', { login: name, password: PASSWORD })).status, name).toBe(200);
      } finally {
        await on.stop();
      }
    } finally {
      await database.drop();
    }
  }, 600_000);
});
