/**
 * Event handlers and field processors over HTTP, on SQLite and PostgreSQL: the
 * events fixture's user-owned stubs are filled in below (as a user would), the project is
 * compiled with them and started with `auth = true`. Then: a before handler sets a field, an
 * after handler edits the response, a handler writes another model through `event.db` in the
 * action's transaction (rolled back when a later handler throws), processors chain in order,
 * the actions with underscores fire, and login/logout/register fire on the user model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api } from '../support/http.js';
import { writeEventsCode } from '../support/events-code.js';
import { generatedProject, tool } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

let dir: string;

beforeAll(async () => {
  dir = await generatedProject('events', 'e2e-events');
  writeEventsCode(dir);
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  if (build.exitCode !== 0) throw new Error(`build failed:\n${build.all}`);
}, 600_000);

describe.each(ENGINES)('events on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;

  const audits = async (action: string) =>
    (
      (await api('GET', `/audit_entries?action=${action}&_limit=100`)).body.data as {
        model: string;
        count: number | null;
      }[]
    ).map((e) => `${e.model}:${e.count ?? '-'}`);

  beforeAll(async () => {
    database = await testDatabase(engine, dir, 'events');
    service = await startService(
      dir,
      {
        ...database.env,
        SVC_AUTH: 'true',
        SVC_AUTH_TKT_SECRET: 'events-ticket-secret-0123456789abcdef0123456789',
        SVC_SYSTEM_USER: 'root',
        SVC_SYSTEM_PASSWORD: 'root-password',
        SVC_SYSTEM_EMAIL: 'root@example.com',
      },
      '/v1',
    );
    api = apiClient(service.origin, '/v1');
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('a before handler sets a field of the new object', async () => {
    const reply = await api('POST', '/projects', { name: 'Big Launch 2' });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ name: 'Big Launch 2', slug: 'big-launch-2' });
    // The field is guarded: a slug the client sends wins.
    expect((await api('POST', '/projects', { name: 'Other', slug: 'mine' })).body.slug).toBe('mine');
  });

  it('processors chain in list order (trim, then capitalize)', async () => {
    const reply = await api('POST', '/tasks', { title: '   write the docs ' });
    expect(reply.status).toBe(201);
    expect(reply.body.title).toBe('Write the docs');
    const patched = await api('PATCH', `/tasks/${reply.body.id}`, { title: ' review ' });
    expect(patched.body.title).toBe('Review');
    // Fields not being written are not processed.
    expect((await api('PATCH', `/tasks/${reply.body.id}`, { done: true })).body.title).toBe('Review');
  });

  it('an after handler edits the response, reading another model through event.db', async () => {
    const project = (await api('POST', '/projects', { name: 'Counted' })).body;
    for (const title of ['a', 'b', 'c']) await api('POST', '/tasks', { title, project: project.id });
    const [first] = (await api('GET', `/tasks?project_id=${project.id}`)).body.data;
    await api('PATCH', `/tasks/${first.id}`, { done: true });
    const shown = await api('GET', `/projects/${project.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.open_tasks).toBe(2);
    // Only show has the handler.
    expect((await api('GET', `/projects?id=${project.id}`)).body.data[0]).not.toHaveProperty('open_tasks');
  });

  it('a handler updates another model in the same transaction', async () => {
    const project = (await api('POST', '/projects', { name: 'Closing' })).body;
    for (const title of ['x', 'y']) await api('POST', '/tasks', { title, project: project.id });
    const reply = await api('PATCH', `/projects/${project.id}`, { status: 'closed' });
    expect(reply.status).toBe(200);
    const tasks = (await api('GET', `/tasks?project_id=${project.id}`)).body.data as { done: boolean }[];
    expect(tasks.map((t) => t.done)).toEqual([true, true]);
  });

  it('a later handler that throws rolls back the action and every earlier handler’s writes', async () => {
    const project = (await api('POST', '/projects', { name: 'frozen' })).body;
    for (const title of ['p', 'q']) await api('POST', '/tasks', { title, project: project.id });
    const reply = await api('PATCH', `/projects/${project.id}`, { status: 'closed' });
    expect(reply.status).toBe(409);
    expect(reply.body.message).toBe('frozen projects do not change');
    expect((await api('GET', `/projects/${project.id}`)).body.status).toBe('open');
    const tasks = (await api('GET', `/tasks?project_id=${project.id}`)).body.data as { done: boolean }[];
    expect(tasks.map((t) => t.done)).toEqual([false, false]);
  });

  it('a plain error in a handler: 500 without internals, nothing written', async () => {
    const before = (await api('GET', '/projects?_count=1')).body.count;
    const reply = await api('POST', '/projects', { name: 'boom' });
    expect(reply.status).toBe(500);
    expect(JSON.stringify(reply.body)).not.toContain('/etc/secret');
    expect((await api('GET', '/projects?_count=1')).body.count).toBe(before);
    // The log names the handler that threw and its event, where the stack points into dist/.
    const logged = () =>
      service
        .output()
        .split('\n')
        .find((line) => line.includes(String(reply.body['request_id'])) && line.includes('"level":50'));
    await expect
      .poll(logged, { timeout: 5000 })
      .toContain(
        '"thrown_by":"setSlug, before_create of Project","msg":"request failed in setSlug, before_create of Project"',
      );
    // Its stack names the handler's TypeScript source, as `npm start` runs the service (--enable-source-maps).
    expect(logged()).toMatch(/src\/custom\/handlers\/set-slug\.ts:\d+/);
  });

  it('fires the actions with underscores, and a handler shared by models sees each model', async () => {
    await api('POST', '/projects', { name: 'bulk one' });
    await api('POST', '/projects', { name: 'bulk two' });
    expect((await api('PATCH', '/projects?slug=bulk-one', { status: 'closed' })).status).toBe(200);
    expect(await audits('update_many')).toEqual(['Project:1']);
    const deleted = await api('DELETE', '/projects?status=closed');
    expect(deleted.status).toBe(200);
    // before_delete_many: no response yet; the handler counts what event.where selects, as the delete does.
    expect(deleted.body['count']).toBeGreaterThan(0);
    expect(await audits('delete_many')).toEqual([`Project:${String(deleted.body['count'])}`]);
    const creates = await audits('create');
    expect(creates.length).toBeGreaterThanOrEqual(2);
    expect(new Set(creates)).toEqual(new Set(['Task:-']));
  });

  it('fires on reads and OPTIONS too (index, collection_options, item_options)', async () => {
    const task = (await api('POST', '/tasks', { title: 'read me' })).body;
    const listed = (await api('GET', '/tasks?_limit=1')).body;
    expect(await audits('index')).toContain(`Task:${listed.count}`);
    expect((await api('OPTIONS', '/tasks')).status).toBe(200);
    expect((await api('OPTIONS', `/tasks/${task.id}`)).status).toBe(200);
    expect(await audits('collection_options')).toEqual(['Task:-']);
    expect(await audits('item_options')).toEqual(['Task:-']);
  });

  it('register, login and logout fire on the user model; a before_login handler can refuse', async () => {
    const registered = await api('POST', '/auth/register', {
      username: 'dan',
      email: 'dan@example.com',
      password: 'password-123',
      display_name: '  dan d. ',
    });
    expect(registered.status).toBe(201);
    // Processors run for register too; trim and capitalize are shared with Task.title.
    expect(registered.body.display_name).toBe('Dan d.');
    expect(await audits('register')).toEqual(['User:-']);
    const first = await api('POST', '/auth/login', { login: 'dan', password: 'password-123' });
    expect(first.status).toBe(200);
    expect(first.body.login_count).toBe(1);
    const second = await api('POST', '/auth/login', { login: 'dan', password: 'password-123' });
    expect(second.body.login_count).toBe(2);
    const cookie = /auth_tkt=([^;]*)/.exec(second.headers.get('set-cookie') ?? '')?.[0];
    expect((await api('POST', '/auth/logout', undefined, { headers: { cookie: cookie! } })).status).toBe(200);
    expect(await audits('logout')).toEqual(['User:-']);

    const root = await api('POST', '/auth/login', { login: 'root', password: 'root-password' });
    const rootCookie = /auth_tkt=([^;]*)/.exec(root.headers.get('set-cookie') ?? '')?.[0] ?? '';
    expect((await api('PATCH', '/users/dan', { active: false }, { headers: { cookie: rootCookie } })).status).toBe(200);
    const refused = await api('POST', '/auth/login', { login: 'dan', password: 'password-123' });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('this account is disabled');
    expect(refused.headers.get('set-cookie')).toBeNull();
  });
});
