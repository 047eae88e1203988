/**
 * A PUT of an object by a caller who may update it but not write all of its fields (HR changing
 * an employee's record, whose email and password they may neither see nor send): what they may
 * not write keeps its stored value, and only the fields they may write must be sent. Before, the
 * route's body schema required every required field, so such a PUT was a 400 without the
 * password and a 403 with it (a probe's HR could not PUT at all).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { testDatabase } from '../support/databases.js';
import { securedRaml, usersRaml } from '../support/files.js';
import { apiClient, type Api } from '../support/http.js';
import { projectOf, tool } from '../support/project.js';
import { rootAuthEnv } from '../support/library.js';
import { startService } from '../support/server.js';

const API = securedRaml(
  'Staff',
  {
    users_acl: { collection: 'allow g:admin all\nallow g:hr view', item: 'allow g:admin all\nallow g:hr view, update' },
  },
  `
${usersRaml(['get', 'put', 'patch'])}`,
);

const user = (title: object) =>
  JSON.stringify({
    type: 'object',
    _auth_model: true,
    _auth_fields: ['username', 'title', 'groups'],
    properties: {
      username: { type: 'string', _db_settings: { type: 'string', primary_key: true, required: true } },
      email: { _db_settings: { type: 'string', required: true, unique: true } },
      password: { _db_settings: { type: 'string', required: true, min_length: 8 } },
      title,
      groups: { _db_settings: { type: 'list', item_type: 'string', default: ['user'] } },
    },
  });

const USER = user({ type: 'string', _db_settings: { type: 'string', required: true, default: 'Staff' } });

const PASSWORD = 'password-123';

describe('a PUT by a caller who may not write every field', () => {
  let api: Api;
  const as = (header: string) => ({ headers: { authorization: header } });
  const token = async (login: string, password = PASSWORD) => {
    const reply = await api('POST', '/auth/token', { login, password });
    expect(reply.status, reply.text).toBe(200);
    return reply.headers.get('www-authenticate')!;
  };

  beforeAll(async () => {
    const dir = await projectOf({ 'api.raml': API, 'user.json': USER }, 'e2e-put-others');
    const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
    expect(build.exitCode, build.all).toBe(0);
    const database = await testDatabase('sqlite', dir, 'put_others');
    const service = await startService(dir, { ...database.env, ...rootAuthEnv() }, '/v1');
    api = apiClient(service.origin, '/v1');
    for (const name of ['hana', 'bob'])
      expect(
        (
          await api('POST', '/auth/register', {
            username: name,
            email: `${name}@example.com`,
            password: PASSWORD,
            title: 'Staff',
          })
        ).status,
      ).toBe(201);
    const root = await token('root', 'root-password');
    expect((await api('PATCH', '/users/hana', { groups: ['hr'] }, as(root))).status).toBe(200);
    return async () => {
      await service.stop();
      await database.drop();
    };
  }, 600_000);

  it('keeps what they may not write, and writes the rest', async () => {
    const hana = await token('hana');
    const put = await api('PUT', '/users/bob', { username: 'bob', title: 'Engineer' }, as(hana));
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ username: 'bob', title: 'Engineer' });
    // bob's email and password are as they were: he logs in with them.
    expect((await api('POST', '/auth/token', { login: 'bob@example.com', password: PASSWORD })).status).toBe(200);
  });

  it('still refuses what they may not write, and wants what they may', async () => {
    const hana = await token('hana');
    const sent = await api('PUT', '/users/bob', { username: 'bob', email: 'hana@evil.example' }, as(hana));
    expect(sent.status, sent.text).toBe(403);
    // What they may write and leave out goes back to its default, as in any PUT.
    const reset = await api('PUT', '/users/bob', { username: 'bob' }, as(hana));
    expect([reset.status, reset.body.title], reset.text).toEqual([200, 'Staff']);
  });
});

describe('the system user of a user model with a required field and no default', () => {
  it('is refused at start with the field named, not a database error', async () => {
    const dir = await projectOf(
      { 'api.raml': API, 'user.json': user({ type: 'string', _db_settings: { type: 'string', required: true } }) },
      'e2e-put-others-system',
    );
    const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
    expect(build.exitCode, build.all).toBe(0);
    const database = await testDatabase('sqlite', dir, 'system_user');
    try {
      const refused = await startService(dir, { ...database.env, ...rootAuthEnv() }, '/v1').then(
        () => 'started',
        (error: Error) => error.message,
      );
      expect(refused).toMatch(
        /The service could not start: the system user "root" \(system.user\) cannot be created: the user model's required field title has no default/,
      );
      // One line, as every refusal of the settings: no stack.
      expect(refused).not.toMatch(/Error: the system user|\n\s+at /);
      // The migrations this start applied stay applied, and it says so.
      expect(refused).toMatch(/applied \d+ migration\(s\) before the start failed: 0001_/);
    } finally {
      await database.drop();
    }
  }, 600_000);
});
