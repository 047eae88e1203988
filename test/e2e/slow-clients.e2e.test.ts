/**
 * Slow and hostile clients (issue 16): a client that sends its headers or its body too slowly
 * (slowloris) is cut off after http.request_timeout with a 408, and the service keeps serving
 * everyone else.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api } from '../support/http.js';
import { builtProject } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/v1';
const REQUEST_TIMEOUT = 1500;

/** Sends `text` on a raw connection and never finishes the request; resolves with what the server said and when it hung up. */
function stall(origin: string, text: string): Promise<{ answer: string; closedAfterMs: number }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let answer = '';
    const socket = connect(Number(port), hostname, () => socket.write(text));
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve({ answer, closedAfterMs: performance.now() - started }));
    setTimeout(() => socket.destroy(new Error('the server kept a stalled request open for 15 s')), 15_000).unref();
  });
}

describe('slow clients', () => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;

  beforeAll(async () => {
    const dir = await builtProject('ramses-starter', 'e2e-slow-clients');
    database = await testDatabase('sqlite', dir, 'slow_clients');
    service = await startService(dir, { ...database.env, SVC_HTTP_REQUEST_TIMEOUT: String(REQUEST_TIMEOUT) }, BASE);
    api = apiClient(service.origin, BASE);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('cuts off a request whose headers never end, and one whose body never comes, with 408', async () => {
    const slowHeaders = stall(service.origin, `GET ${BASE}/items HTTP/1.1\r\nHost: x\r\nX-Slow: `);
    const slowBody = stall(
      service.origin,
      `POST ${BASE}/items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`,
    );
    // Meanwhile everyone else is served.
    expect((await api('POST', '/items', { name: 'not slow' })).status).toBe(201);
    for (const { answer, closedAfterMs } of await Promise.all([slowHeaders, slowBody])) {
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      expect(closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT - 100);
      expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT + 2500);
    }
    expect((await api('GET', '/items')).status).toBe(200);
  }, 30_000);
});
