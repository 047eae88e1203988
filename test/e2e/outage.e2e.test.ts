/**
 * The database goes away and comes back (issue 16): while PostgreSQL is stopped, or the MongoDB
 * server is gone, every request is answered within a bounded time with 503, the error body and
 * Retry-After, `/health` too; once the database is back the service serves again by itself,
 * without a restart, and nothing it acknowledged is lost. PostgreSQL runs as a cluster of this
 * test's own (scripts/postgres.sh on a free port), so stopping it disturbs no other suite.
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/free-port.mjs';
import { startMongoTestServer } from '../../scripts/mongo-test-server/index.mjs';
import { apiClient, type Api, type Reply } from '../support/http.js';
import { repoRoot } from '../support/paths.js';
import { builtProject } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/v1';
/** database.connect_timeout of the services under test: a request waits this long for a connection at most. */
const CONNECT_TIMEOUT = 1000;

/** A request that must be answered 503 (with Retry-After and the error body) within a bounded time. */
async function expectUnavailable(api: Api, method: string, path: string, body?: unknown): Promise<Reply> {
  const started = performance.now();
  const reply = await api(method, path, body);
  expect(reply.status, `${method} ${path}: ${reply.text}`).toBe(503);
  expect(reply.headers.get('retry-after')).toBe('2');
  expect(reply.body).toMatchObject({
    status_code: 503,
    message: 'the database does not answer; try again in a moment',
  });
  expect(performance.now() - started).toBeLessThan(CONNECT_TIMEOUT + 4000);
  return reply;
}

/** Polls until GET `path` answers 200 (the service reconnected by itself); returns how long it took. */
async function untilServing(api: Api, path: string, withinMs: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const reply = await api('GET', path);
    if (reply.status === 200) return performance.now() - started;
    expect(reply.status).toBe(503);
    if (performance.now() - started > withinMs)
      throw new Error(`still ${reply.status} after ${withinMs} ms: ${reply.text}`);
    await sleep(200);
  }
}

describe('PostgreSQL stopped and started again under a running service', () => {
  let service: RunningService;
  let api: Api;
  // Commits are synchronous here: a crash may take an unacknowledged write with it, never an acknowledged one.
  const cluster = {
    SVCGEN_PG_PORT: '',
    SVCGEN_PG_DIR: join(tmpdir(), `svcgen-pg-outage-${process.pid}`),
    SVCGEN_PG_SYNCHRONOUS_COMMIT: 'on',
  };
  const pg = (command: 'start' | 'stop' | 'crash') =>
    execa('bash', [join(repoRoot, 'scripts/postgres.sh'), command], { env: cluster });

  beforeAll(async () => {
    cluster.SVCGEN_PG_PORT = String(await freePort());
    const url = (await pg('start')).stdout.trim().split('\n').pop()!;
    const dir = await builtProject('ramses-starter', 'e2e-outage');
    service = await startService(
      dir,
      { SVC_DATABASE_URL: url, SVC_DATABASE_CONNECT_TIMEOUT: String(CONNECT_TIMEOUT) },
      BASE,
    );
    api = apiClient(service.origin, BASE);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await pg('stop').catch(() => undefined);
    rmSync(cluster.SVCGEN_PG_DIR, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After while the database is down, then serves again by itself, losing nothing acknowledged', async () => {
    const acknowledged: number[] = [];
    for (let i = 0; i < 5; i++) {
      const reply = await api('POST', '/items', { name: `before ${i}` });
      expect(reply.status).toBe(201);
      acknowledged.push(reply.body.id);
    }
    // An item by its key and a page: the pipelined connections (lib/sql/pipelined-reads.ts) are open when the database stops.
    expect((await api('GET', `/items/${acknowledged[0]}`)).status).toBe(200);
    expect((await api('GET', '/items?_limit=3')).status).toBe(200);
    await pg('stop');
    await expectUnavailable(api, 'GET', '/items');
    await expectUnavailable(api, 'GET', `/items/${acknowledged[0]}`);
    await expectUnavailable(api, 'POST', '/items', { name: 'while down' });
    await expectUnavailable(api, 'DELETE', `/items/${acknowledged[1]}`);
    await expectUnavailable(api, 'GET', '/health');
    await pg('start');
    expect(await untilServing(api, '/items', 15_000)).toBeLessThan(15_000);
    const after = await api('GET', '/items?_limit=100');
    expect(after.body.data.map((o: { id: number }) => o.id)).toEqual(expect.arrayContaining(acknowledged));
    expect(after.body.data.some((o: { name: string }) => o.name === 'while down')).toBe(false);
    expect((await api('POST', '/items', { name: 'after' })).status).toBe(201);
    // The pipelined connections the stop ended are opened again.
    expect((await api('GET', `/items/${acknowledged[0]}`)).status).toBe(200);
    expect((await api('GET', '/items?_limit=3')).status).toBe(200);
    expect((await api('GET', '/health')).status).toBe(200);
  }, 60_000);

  it.each([
    ['a crash (stop -m immediate, then start)', 'crash', 500],
    ['a 10 s outage (stop -m fast, start 10 s later)', 'stop', 10_000],
  ] as const)(
    'rides out %s under load: same process, only 2xx and 503, each in bounded time, every 201 kept',
    async (_fault, command, downMs) => {
      const tag = command === 'crash' ? 'crash' : 'outage';
      const statuses: Record<string, number> = {};
      const acknowledged: number[] = [];
      let slowestMs = 0;
      let loading = true;
      const client = async (n: number) => {
        for (let i = 0; loading; i++) {
          const started = performance.now();
          // A write, a page and an item by its key (the pipelined connections, lib/sql/pipelined-reads.ts).
          const kept = acknowledged.at(-1);
          const request =
            i % 3 === 0
              ? api('POST', '/items', { name: `${tag} ${n}-${i}` })
              : i % 3 === 2 && kept !== undefined
                ? api('GET', `/items/${kept}`)
                : api('GET', '/items?_limit=5');
          const reply = await request.catch(() => null);
          slowestMs = Math.max(slowestMs, performance.now() - started);
          const status = reply ? String(reply.status) : 'connection lost';
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (!reply) return;
          if (reply.status === 201) acknowledged.push(reply.body.id);
          if (reply.status === 503) expect(reply.headers.get('retry-after')).toBe('2');
          else expect([200, 201], reply.text).toContain(reply.status);
          // A client that is told to come back does not hammer the service meanwhile.
          if (reply.status === 503) await sleep(100);
        }
      };
      const load = Promise.all(Array.from({ length: 8 }, (_, n) => client(n)));
      await sleep(1000);
      await pg(command);
      await sleep(downMs);
      await pg('start');
      await sleep(200);
      expect(service.process.exitCode, `the service ended:\n${service.output().slice(-3000)}`).toBeNull();
      const backAfter = await untilServing(api, '/items', 15_000);
      await sleep(1000);
      loading = false;
      await load;
      console.log(
        `PostgreSQL ${tag} under load: ${JSON.stringify({ statuses, slowestAnswerMs: Math.round(slowestMs), servingAgainAfterMs: Math.round(backAfter) })}`,
      );
      expect(statuses['connection lost']).toBeUndefined();
      expect(statuses['503']).toBeGreaterThan(0);
      // Items by their key are served again too: the pipelined connection the fault ended was opened again.
      expect((await api('GET', `/items/${acknowledged.at(-1)!}`)).status).toBe(200);
      expect(slowestMs).toBeLessThan(CONNECT_TIMEOUT + 4000);
      const present = new Set<number>();
      for (let page = 0; ; page++) {
        const reply = await api('GET', `/items?_limit=1000&_page=${page}&_fields=id&name__startswith=${tag}`);
        for (const o of reply.body.data) present.add(o.id);
        if (reply.body.data.length < 1000) break;
      }
      expect(acknowledged.filter((id) => !present.has(id))).toEqual([]);
    },
    60_000,
  );
});

describe('the MongoDB server gone and back under a running service', () => {
  let service: RunningService;
  let api: Api;
  let server: { url: string; close(): Promise<void> };
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    server = await startMongoTestServer({ port });
    const dir = await builtProject('ramses-starter', 'e2e-outage');
    const url = new URL(server.url);
    url.pathname = '/svcgen_outage';
    service = await startService(
      dir,
      { SVC_ENGINE: 'svc_mongodb', SVC_MONGODB_URL: url.href, SVC_DATABASE_CONNECT_TIMEOUT: String(CONNECT_TIMEOUT) },
      BASE,
    );
    api = apiClient(service.origin, BASE);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await server?.close();
  });

  it('answers 503 with Retry-After while the server is gone, then serves again by itself', async () => {
    expect((await api('POST', '/items', { name: 'before' })).status).toBe(201);
    await server.close();
    await expectUnavailable(api, 'GET', '/items');
    await expectUnavailable(api, 'POST', '/items', { name: 'while gone' });
    await expectUnavailable(api, 'GET', '/health');
    // The test server keeps its data in memory: the one that comes back is empty, but it answers.
    server = await startMongoTestServer({ port });
    expect(await untilServing(api, '/items', 20_000)).toBeLessThan(20_000);
    expect((await api('POST', '/items', { name: 'after' })).status).toBe(201);
  }, 60_000);
});
