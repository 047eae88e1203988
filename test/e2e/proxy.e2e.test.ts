/**
 * Behind a proxy (issue 16): X-Forwarded-* are believed only from the proxies http.trust_proxy
 * names; then `_self` URLs (and Secure cookies) follow the client's protocol and host. From
 * anyone else the headers are ignored: a client cannot make the service link elsewhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient } from '../support/http.js';
import { builtProject } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/v1';
const FORWARDED = {
  'x-forwarded-proto': 'https',
  'x-forwarded-host': 'api.example.com',
  'x-forwarded-for': '203.0.113.7',
};

describe.each([
  ['not set (the default)', undefined],
  ['loopback (the proxy is on this machine)', 'loopback'],
  ['an address list that does not hold the proxy', '10.0.0.0/8'],
])('http.trust_proxy %s', (_label, setting) => {
  let database: TestDatabase;
  let service: RunningService;

  beforeAll(async () => {
    const dir = await builtProject('ramses-starter', 'e2e-proxy');
    database = await testDatabase('sqlite', dir, 'proxy');
    service = await startService(dir, { ...database.env, ...(setting ? { SVC_HTTP_TRUST_PROXY: setting } : {}) }, BASE);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it(
    // oxlint-disable-next-line vitest/valid-title -- one string or the other, whichever the setting makes true
    setting === 'loopback'
      ? 'links objects at the forwarded protocol and host'
      : 'ignores X-Forwarded-* and links at the address it was reached on',
    async () => {
      const api = apiClient(service.origin, BASE);
      const reply = await api('POST', '/items', { name: 'forwarded' }, { headers: FORWARDED });
      expect(reply.status).toBe(201);
      const expected =
        setting === 'loopback'
          ? `https://api.example.com${BASE}/items/${reply.body.id}`
          : `${service.origin}${BASE}/items/${reply.body.id}`;
      expect(reply.body._self).toBe(expected);
      expect(reply.headers.get('location')).toBe(expected);
    },
  );
});
