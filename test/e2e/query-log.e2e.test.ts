/**
 * Every value a client sends reaches SQL as a bound parameter, never as text of the statement:
 * ramses-example with the query log on (log.level = debug logs each statement's text, without its
 * parameters) gets injection payloads in filters, text matching, search, sorting, keys and bodies;
 * the log holds statements, and not one of them holds a payload's marker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api } from '../support/http.js';
import { builtProject } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const MARKER = 'zqmarker';
const PAYLOADS = [`${MARKER}' OR '1'='1`, `${MARKER}"; drop table story; --`, `${MARKER}%_\\`, `${MARKER}) or (1=1`];

describe.each(['sqlite', 'postgres'] as const)('the statements sent to %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;

  beforeAll(async () => {
    const dir = await builtProject('ramses-example', 'e2e-query-log');
    database = await testDatabase(engine, dir, 'query_log');
    service = await startService(dir, { ...database.env, SVC_LOG_LEVEL: 'debug' }, '/v1');
    api = apiClient(service.origin, '/v1');
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('never hold a value the client sent', async () => {
    for (const payload of PAYLOADS) {
      const value = encodeURIComponent(payload);
      const created = await api('POST', '/stories', { name: payload, description: payload });
      expect(created.status, created.text).toBe(201);
      for (const query of [
        `name=${value}`,
        `name__contains=${value}`,
        `name__startswith=${value}`,
        `description__in=${value},x`,
        `q=${value}`,
        `name__ne=${value}&_sort=-name`,
      ]) {
        const reply = await api('GET', `/stories?${query}`);
        expect(reply.status, `${query}: ${reply.text}`).toBeLessThan(500);
      }
      expect((await api('GET', `/stories/${value}`)).status).toBe(404);
      expect((await api('PATCH', `/stories/${created.body.id}`, { description: `${payload} again` })).status).toBe(200);
      expect((await api('PATCH', `/stories?name=${value}`, { description: payload })).status).toBe(200);
      expect((await api('DELETE', `/stories?name=${value}`)).status).toBe(200);
    }
    await new Promise((resolve) => setTimeout(resolve, 300)); // the log is written asynchronously
    const statements = service
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"query"'))
      .map((line) => String(JSON.parse(line).query));
    expect(statements.filter((s) => /^\s*(select|insert|update|delete)/i.test(s)).length).toBeGreaterThan(
      PAYLOADS.length * 8,
    );
    expect(statements.filter((s) => s.includes(MARKER))).toEqual([]);
  });
});
