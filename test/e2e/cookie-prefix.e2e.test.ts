/**
 * auth.cookie_host_prefix (issue 16): the login cookie is `__Host-<name>`, Secure, Path=/, host-only,
 * and only that name logs a caller in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api } from '../support/http.js';
import { builtProject } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/v1';

describe('auth.cookie_host_prefix = true', () => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;

  beforeAll(async () => {
    const dir = await builtProject('ramses-example', 'e2e-cookie-prefix');
    database = await testDatabase('sqlite', dir, 'cookie_prefix');
    service = await startService(dir, { ...database.env, SVC_AUTH: 'true', SVC_AUTH_TKT_SECRET: 'x'.repeat(48), SVC_AUTH_COOKIE_HOST_PREFIX: 'true' }, BASE);
    api = apiClient(service.origin, BASE);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('sets __Host-ramses_auth_tkt, Secure, Path=/, no Domain; that cookie logs in, the bare name does not', async () => {
    const registered = await api('POST', '/auth/register', { username: 'hana', email: 'hana@example.com', password: 'a long enough password' });
    expect(registered.status, registered.text).toBe(201);
    const cookie = registered.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^__Host-ramses_auth_tkt=[^;]+;/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/Domain=/);
    const value = /^__Host-ramses_auth_tkt=([^;]+)/.exec(cookie)![1];
    expect((await api('GET', '/users/self', undefined, { headers: { cookie: `__Host-ramses_auth_tkt=${value}` } })).status).toBe(200);
    expect((await api('GET', '/users/self', undefined, { headers: { cookie: `ramses_auth_tkt=${value}` } })).status).toBe(401);
    const out = await api('POST', '/auth/logout', undefined, { headers: { cookie: `__Host-ramses_auth_tkt=${value}` } });
    expect(out.headers.get('set-cookie')).toMatch(/^__Host-ramses_auth_tkt=;.*Max-Age=0/);
  });
});
