/**
 * The limits that keep one client from hurting the others (issue 16), on SQLite, PostgreSQL and
 * MongoDB, with the events fixture (its before handler of Project creates is made slow on request):
 * `http.handler_timeout` (503, nothing the request wrote is saved), `bulk_max`, `max_offset`,
 * `rate_limit.writes` and `rate_limit.auth` (429 with Retry-After, per client address, which
 * X-Forwarded-For does not change without `http.trust_proxy`), and JSON-schema patterns given a
 * long hostile string.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { writeEventsCode } from '../support/events-code.js';
import { runCli } from '../support/cli.js';
import { apiClient, type Api, type Reply } from '../support/http.js';
import { repoRoot } from '../support/paths.js';
import { linkDependencies, tool } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const HANDLER_TIMEOUT = 1000;
/** How long the slow handler sleeps: well past the timeout, so the 503 comes first. */
const SLOW_HANDLER = 2500;
const AUTH = {
  SVC_AUTH: 'true',
  SVC_AUTH_TKT_SECRET: 'limits-ticket-secret-0123456789abcdef0123456789',
  SVC_SYSTEM_USER: 'root',
  SVC_SYSTEM_PASSWORD: 'root-password',
  SVC_SYSTEM_EMAIL: 'root@example.com',
};

/**
 * Project's before_create handler, as a user might write it: for "slow …" it records an audit
 * entry, takes its time, then records another, past its request's time; "hang …" waits for
 * nothing but the request's signal, as a fetch given it would.
 */
const SLOW_SET_SLUG = `import { databaseOf } from '../../db/index.js';
import type { SetSlugEvent } from '../../events.js';

export async function setSlug(event: SetSlugEvent): Promise<void> {
  const name = event.fields.name?.new_value ?? '';
  if (name.startsWith('slow')) {
    await event.db.auditEntry.create({ data: { model: name, action: 'create', count: null } });
    await new Promise((resolve) => setTimeout(resolve, ${SLOW_HANDLER}));
    const late = (model: string) => ({ data: { model, action: 'create', count: null } });
    // Through the request's transaction, and through databaseOf(request) as a principal reads.
    const outcomes = await Promise.allSettled([
      event.db.auditEntry.create(late(name + ' late')),
      (async () => databaseOf(event.view.request).auditEntry.create(late(name + ' later')))(),
    ]);
    for (const outcome of outcomes) if (outcome.status === 'rejected') console.log('late: ' + String(outcome.reason));
    for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
  }
  if (name.startsWith('hang')) {
    await new Promise((_, reject) =>
      event.signal.addEventListener('abort', () => reject(new Error(name + ': aborted by its signal'))),
    );
  }
  event.setFieldValue('slug', name.toLowerCase().replace(/[^a-z0-9]+/g, '-'));
}
`;

/**
 * A pattern the generator accepts (no exponential shape) that still backtracks quadratically:
 * without the service's bound on the text a pattern sees, 50,000 letters and a `!` take seconds.
 */
const QUADRATIC_PATTERN = '^[a-z]+[a-z0-9]*$';

/** The events fixture, with a Task.code field checked by QUADRATIC_PATTERN. */
function eventsWithPattern(folder: string): string {
  rmSync(folder, { recursive: true, force: true });
  cpSync(join(repoRoot, 'fixtures/events'), folder, { recursive: true });
  const schema = join(folder, 'schemas/task.json');
  const task = JSON.parse(readFileSync(schema, 'utf8'));
  task.properties.code = { type: 'string', pattern: QUADRATIC_PATTERN, _db_settings: { type: 'text' } };
  writeFileSync(schema, JSON.stringify(task));
  return join(folder, 'api.raml');
}

let dir: string;

beforeAll(async () => {
  dir = join(repoRoot, '.tmp/e2e-limits/events');
  rmSync(dir, { recursive: true, force: true });
  const generated = await runCli(
    ['generate', eventsWithPattern(join(repoRoot, '.tmp/e2e-limits/api')), '-o', dir],
    repoRoot,
  );
  if (generated.code !== 0) throw new Error(`svcgen generate failed:\n${generated.stderr}`);
  await linkDependencies(dir);
  writeEventsCode(dir);
  writeFileSync(join(dir, 'src/custom/handlers/set-slug.ts'), SLOW_SET_SLUG);
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  if (build.exitCode !== 0) throw new Error(`build failed:\n${build.all}`);
}, 600_000);

function expectErrorBody(reply: Reply, status: number): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body).toMatchObject({
    status_code: status,
    message: expect.any(String),
    request_url: expect.any(String),
  });
  expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
}

describe.each(ENGINES)('limits on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let limited: RunningService;
  let api: Api;
  let limitedApi: Api;

  beforeAll(async () => {
    database = await testDatabase(engine, dir, 'limits');
    service = await startService(
      dir,
      {
        ...database.env,
        ...AUTH,
        SVC_HTTP_HANDLER_TIMEOUT: String(HANDLER_TIMEOUT),
        SVC_BULK_MAX: '5',
        SVC_MAX_OFFSET: '50',
      },
      '/v1',
    );
    limited = await startService(
      dir,
      { ...database.env, ...AUTH, SVC_RATE_LIMIT_WRITES: '3', SVC_RATE_LIMIT_AUTH: '4' },
      '/v1',
    );
    api = apiClient(service.origin, '/v1');
    limitedApi = apiClient(limited.origin, '/v1');
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await limited?.stop();
    await database?.drop();
  });

  it('answers 503 to a request whose handler outlasts http.handler_timeout, and saves nothing it wrote, then or later', async () => {
    const started = performance.now();
    const slow = await api('POST', '/projects', { name: 'slow one' });
    expectErrorBody(slow, 503);
    expect(slow.body.message).toContain('http.handler_timeout');
    expect(performance.now() - started).toBeLessThan(SLOW_HANDLER);
    // Its transaction was undone at the 503, not when the handler ends: the next write is made at
    // once (a probe's handler that never returned held SQLite's writer, every write failing, 5 min).
    const quick = performance.now();
    expect((await api('POST', '/projects', { name: 'quick one' })).status).toBe(201);
    expect(performance.now() - quick).toBeLessThan(SLOW_HANDLER / 2);
    // What the handler writes once it goes on, past its request's time, lands nowhere.
    await sleep(SLOW_HANDLER + 500);
    expect((await api('GET', '/projects?name=slow one')).body.total).toBe(0);
    expect((await api('GET', '/audit_entries?model__startswith=slow one')).body.total).toBe(0);
    expect(service.output()).toContain("setSlug, before_create of Project failed after its request's time was up");
    // MongoDB's driver refuses the ended session by itself.
    expect(service.output()).toContain(
      engine === 'mongodb' ? 'Use of expired sessions is not permitted' : 'the transaction has ended',
    );
    expect(service.output()).toMatch(/late: \w*Error: the request took longer than the service allows/);
  }, 30_000);

  it('aborts the signal a handler waits on when its request is answered 503, and makes the writes queued behind it', async () => {
    // The hanging create holds SQLite's one writer (and the MongoDB test server's lock of the
    // collection) until its time is up; PostgreSQL locks rows. An audit entry has no handlers: its
    // create, queued behind it, is made once the hanging one's transaction is undone, in its time.
    const hang = api('POST', '/projects', { name: 'hang two' });
    await sleep(200);
    const queued = await api('POST', '/audit_entries', { model: 'queued', action: 'create' });
    expect(queued.status, queued.text).toBe(201);
    expectErrorBody(await hang, 503);
    expect((await api('GET', '/audit_entries?model=queued')).body.total).toBe(1);
    expect((await api('GET', '/projects?name=hang two')).body.total).toBe(0);
    await sleep(200);
    expect(service.output()).toContain('hang two: aborted by its signal');
  }, 30_000);

  it('refuses a bulk change that selects more than bulk_max objects with a 400 naming it, and changes nothing', async () => {
    for (let i = 0; i < 6; i++)
      expect((await api('POST', '/projects', { name: `bulk-${i}`, status: 'open' })).status).toBe(201);
    const patch = await api('PATCH', '/projects?name__startswith=bulk-', { status: 'closed' });
    expect(patch.status, patch.text).toBe(400);
    expect(patch.body.message).toContain('bulk_max');
    const remove = await api('DELETE', '/projects?name__startswith=bulk-');
    expect(remove.status).toBe(400);
    const after = await api('GET', '/projects?name__startswith=bulk-&_limit=100');
    expect(after.body.total).toBe(6);
    expect(after.body.data.every((p: { status: string }) => p.status === 'open')).toBe(true);
    // Five is allowed.
    expect(
      (await api('PATCH', '/projects?name__in=bulk-0,bulk-1,bulk-2,bulk-3,bulk-4', { status: 'closed' })).body.count,
    ).toBe(5);
  });

  it('refuses a page that starts past max_offset with a 400 naming the parameter', async () => {
    const start = await api('GET', '/projects?_start=51');
    expect(start.status).toBe(400);
    expect(start.body.errors).toEqual([{ field: '_start', message: expect.stringContaining('max_offset') }]);
    const page = await api('GET', '/projects?_page=3&_limit=20');
    expect(page.status).toBe(400);
    expect(page.body.errors[0].field).toBe('_page');
    expect((await api('GET', '/projects?_start=50')).status).toBe(200);
  });

  it('limits writes per client address (rate_limit.writes): 429 with Retry-After, reads unaffected, X-Forwarded-For ignored', async () => {
    const created = [];
    for (let i = 0; i < 3; i++) created.push(await limitedApi('POST', '/projects', { name: `limited-${i}` }));
    expect(created.map((r) => r.status)).toEqual([201, 201, 201]);
    const item = `/projects/${String(created[0]!.body.id)}`;
    // http.trust_proxy is off: a made-up X-Forwarded-For is not a new client.
    const over = await limitedApi(
      'POST',
      '/projects',
      { name: 'limited-3' },
      { headers: { 'x-forwarded-for': '203.0.113.9' } },
    );
    expectErrorBody(over, 429);
    // Every write route counts (each gets the limit when it is made), whatever its method.
    expect((await limitedApi('DELETE', '/projects?name=limited-0')).status).toBe(429);
    expect((await limitedApi('PATCH', item, { name: 'renamed' })).status).toBe(429);
    expect((await limitedApi('DELETE', item)).status).toBe(429);
    expect((await limitedApi('GET', '/projects?name__startswith=limited-')).body.total).toBe(3);
    expect((await limitedApi('GET', item)).body.name).toBe('limited-0');
  });

  it('limits the auth routes per client address (rate_limit.auth), however X-Forwarded-For changes', async () => {
    const login = (i: number) =>
      limitedApi(
        'POST',
        '/auth/login',
        { login: 'root', password: 'wrong' },
        { headers: { 'x-forwarded-for': `198.51.100.${i}` } },
      );
    for (let i = 0; i < 4; i++) expect((await login(i)).status).toBe(401);
    expectErrorBody(await login(4), 429);
  });

  it('checks a pattern against a long hostile value without backtracking through it: 400, and the service still answers', async () => {
    const hostile = `${'a'.repeat(50_000)}!`;
    const replies = await Promise.all(
      Array.from({ length: 4 }, () => api('POST', '/tasks', { title: 'x', code: hostile })),
    );
    for (const reply of replies)
      expect(reply.body.errors).toEqual([{ field: 'code', message: expect.stringContaining('pattern') }]);
    // A long value that matches is refused too (the bound), a short one is fine.
    expect((await api('POST', '/tasks', { title: 'x', code: 'a'.repeat(5000) })).status).toBe(400);
    expect((await api('POST', '/tasks', { title: 'x', code: 'abc123' })).status).toBe(201);
  });
});
