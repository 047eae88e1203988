/**
 * The login answer shows an admin every field of their own record, as their GET of it does: a
 * probe's admin logged in and got no `admin_note` (a `_hidden_fields` field, which admins see),
 * while `/users/self` and `/users/<them>` showed it. A member's login answer still leaves it out.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { securedRaml, userSchema, usersRaml } from '../support/files.js';
import { rootAuthEnv } from '../support/library.js';
import { servedApi, type ServedApi } from '../support/served.js';

const ACL = {
  collection: 'allow g:admin all\nallow authenticated view',
  item: 'allow g:admin all\nallow authenticated view',
};

const FILES = {
  'api.raml': securedRaml('Notes', { users_acl: ACL }, usersRaml(['get', 'patch'])),
  'user.json': userSchema(
    { admin_note: { _db_settings: { type: 'string' } } },
    { _hidden_fields: ['password', 'admin_note'] },
  ),
};

describe('the login answer', () => {
  let served: ServedApi;

  beforeAll(async () => {
    served = await servedApi(FILES, 'e2e-admin-login-answer', { env: rootAuthEnv() });
    return () => served.stop();
  }, 600_000);

  it('shows an admin their hidden fields, as their own URL does, and a member none', async () => {
    const login = await served.api('POST', '/auth/login', { login: 'root', password: 'root-password' });
    expect(login.status, login.text).toBe(200);
    expect(login.body).toHaveProperty('admin_note', null);
    expect(login.body).not.toHaveProperty('password');
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const own = await served.api('GET', '/users/root', undefined, { headers: { cookie } });
    expect(Object.keys(login.body).sort()).toEqual(Object.keys(own.body).sort());

    const registered = await served.api('POST', '/auth/register', {
      username: 'ann',
      email: 'ann@example.com',
      password: 'password-123',
    });
    expect(registered.status, registered.text).toBe(201);
    expect(registered.body).not.toHaveProperty('admin_note');
    const member = await served.api('POST', '/auth/login', { login: 'ann', password: 'password-123' });
    expect(member.status, member.text).toBe(200);
    expect(member.body).not.toHaveProperty('admin_note');
    expect(member.body).toHaveProperty('email', 'ann@example.com');
  });
});
