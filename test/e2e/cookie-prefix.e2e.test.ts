/**
 * auth.cookie_host_prefix (issue 16): the login cookie is `__Host-<name>`, Secure, Path=/, host-only,
 * and only that name logs a caller in. Without the prefix, the cookie is Secure when the client
 * reached the service over https: directly, or through a proxy that http.trust_proxy names.
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
    service = await startService(
      dir,
      { ...database.env, SVC_AUTH: 'true', SVC_AUTH_TKT_SECRET: 'x'.repeat(48), SVC_AUTH_COOKIE_HOST_PREFIX: 'true' },
      BASE,
    );
    api = apiClient(service.origin, BASE);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('sets __Host-ramses_auth_tkt, Secure, Path=/, no Domain; that cookie logs in, the bare name does not', async () => {
    const registered = await api('POST', '/auth/register', {
      username: 'hana',
      email: 'hana@example.com',
      password: 'a long enough password',
    });
    expect(registered.status, registered.text).toBe(201);
    const cookie = registered.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^__Host-ramses_auth_tkt=[^;]+;/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/Domain=/);
    expect(registered.headers.getSetCookie()[1]).toMatch(
      /^__Host-ramses_auth_tkt_device_[0-9a-f]{12}=[^;]+;.*; Secure/,
    );
    const value = /^__Host-ramses_auth_tkt=([^;]+)/.exec(cookie)![1];
    expect(
      (await api('GET', '/users/self', undefined, { headers: { cookie: `__Host-ramses_auth_tkt=${value}` } })).status,
    ).toBe(200);
    expect(
      (await api('GET', '/users/self', undefined, { headers: { cookie: `ramses_auth_tkt=${value}` } })).status,
    ).toBe(401);
    const out = await api('POST', '/auth/logout', undefined, {
      headers: { cookie: `__Host-ramses_auth_tkt=${value}` },
    });
    expect(out.headers.get('set-cookie')).toMatch(/^__Host-ramses_auth_tkt=;.*Max-Age=0/);
  });
});

describe('the login cookie without the prefix, behind a trusted proxy', () => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;

  beforeAll(async () => {
    const dir = await builtProject('ramses-example', 'e2e-cookie-prefix');
    database = await testDatabase('sqlite', dir, 'cookie_secure');
    service = await startService(
      dir,
      { ...database.env, SVC_AUTH: 'true', SVC_AUTH_TKT_SECRET: 'y'.repeat(48), SVC_HTTP_TRUST_PROXY: 'loopback' },
      BASE,
    );
    api = apiClient(service.origin, BASE);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  const register = (username: string, headers: Record<string, string> = {}) =>
    api(
      'POST',
      '/auth/register',
      { username, email: `${username}@example.com`, password: 'a long enough password' },
      { headers },
    );

  it('is Secure when the proxy says the client used https, and not over plain http; either way under 4,096 bytes', async () => {
    const https = (await register('ines', { 'x-forwarded-proto': 'https' })).headers.getSetCookie();
    // The ticket, and the device cookie that vouches for this device at later logins (lib/auth/device.ts).
    expect(https).toHaveLength(2);
    expect(https[0]).toMatch(/^ramses_auth_tkt=[^;]+;/);
    expect(https[1]).toMatch(/^ramses_auth_tkt_device_[0-9a-f]{12}=[^;]+;/);
    for (const cookie of https) expect(cookie).toMatch(/; Secure/);
    const http = (await register('jon')).headers.getSetCookie();
    expect(http[0]).toMatch(/^ramses_auth_tkt=[^;]+;/);
    expect(http[1]).toMatch(/^ramses_auth_tkt_device_[0-9a-f]{12}=[^;]+;/);
    for (const cookie of http) expect(cookie).not.toMatch(/Secure/);
    const longest = await register('k'.repeat(50), { 'x-forwarded-proto': 'https' });
    expect(longest.status).toBe(201);
    expect(Buffer.byteLength(longest.headers.getSetCookie()[0]!)).toBeLessThan(4096);
  });
});
