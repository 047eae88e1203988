/**
 * Bulk changes under item ACLs: a variant of ramses-example whose collection rules let every member
 * PATCH and DELETE /stories in bulk, while the item rules give a story's owner (and admins) update
 * and delete and deny them to everyone else. The deny line is what narrows: as in Pyramid, an item
 * whose rules do not match the caller falls back to the collection's. A bulk request is checked
 * object by object inside its transaction: one that touches a story the caller may not change is
 * refused as a whole (403) and changes nothing; one that touches only the caller's own goes through.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api } from '../support/http.js';
import { repoRoot } from '../support/paths.js';
import { linkDependencies } from '../support/project.js';
import { runCli } from '../support/cli.js';
import { withRamsesFunctions } from '../support/ramses-example.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/v1';
const PASSWORD = 'password-123';
const work = join(repoRoot, '.tmp', 'e2e-bulk-acl');
let dir: string;

beforeAll(async () => {
  const api = join(work, 'api');
  rmSync(work, { recursive: true, force: true });
  cpSync(join(repoRoot, 'fixtures/ramses-example'), api, { recursive: true });
  const raml = join(api, 'api.raml');
  const members = readFileSync(raml, 'utf8')
    .replace('allow authenticated create\n', 'allow authenticated create,update,delete\n')
    .replace(
      'allow {{item_owner}} view, update\n',
      'allow {{item_owner}} view, update, delete\n                deny everyone update, delete\n',
    );
  expect(members).toContain('allow authenticated create,update,delete');
  expect(members).toContain('deny everyone update, delete');
  writeFileSync(raml, members);
  dir = join(work, 'project');
  const generated = await runCli(['generate', raml, '-o', dir], repoRoot);
  expect(generated.code, generated.stderr).toBe(0);
  await linkDependencies(dir);
  await withRamsesFunctions(dir);
}, 600_000);

describe.each(ENGINES)('bulk changes under item ACLs on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;
  const cookies = new Map<string, string>();
  const as = (who: string, method: string, path: string, body?: unknown) =>
    api(method, path, body, { headers: { cookie: cookies.get(who)! } });
  const stories = async () =>
    Object.fromEntries(
      (
        (await as('root', 'GET', '/stories?_limit=100&_sort=name')).body.data as { name: string; description: string }[]
      ).map((s) => [s.name, s.description]),
    );

  beforeAll(async () => {
    database = await testDatabase(engine, dir, 'bulk_acl');
    const env = {
      ...database.env,
      SVC_AUTH: 'true',
      SVC_AUTH_TKT_SECRET: 'bulk-acl-secret-0123456789abcdef0123',
      SVC_SYSTEM_USER: 'root',
      SVC_SYSTEM_PASSWORD: 'root-password',
      SVC_SYSTEM_EMAIL: 'root@example.com',
    };
    service = await startService(dir, env, BASE);
    api = apiClient(service.origin, BASE);
    const login = async (name: string, reply: Promise<{ status: number; headers: Headers }>) => {
      const answered = await reply;
      expect(answered.status).toBeLessThan(300);
      cookies.set(name, /ramses_auth_tkt=[^;]*/.exec(answered.headers.get('set-cookie') ?? '')![0]);
    };
    await login('root', api('POST', '/auth/login', { login: 'root', password: 'root-password' }));
    for (const name of ['alice', 'bob'])
      await login(
        name,
        api('POST', '/auth/register', { username: name, email: `${name}@example.com`, password: PASSWORD }),
      );
    for (const [who, name] of [
      ['alice', 'a1'],
      ['alice', 'a2'],
      ['bob', 'b1'],
      ['bob', 'b2'],
    ] as const) {
      expect((await as(who, 'POST', '/stories', { name, description: 'as written' })).status).toBe(201);
    }
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("refuses a bulk PATCH or DELETE that touches another member's story: 403, and no story changes", async () => {
    const before = await stories();
    const patch = await as('bob', 'PATCH', '/stories', { description: 'bob was here' });
    expect(patch.status).toBe(403);
    expect(await stories()).toEqual(before);
    expect((await as('bob', 'PATCH', '/stories?name__in=a1,b1', { description: 'bob was here' })).status).toBe(403);
    expect(await stories()).toEqual(before);
    expect((await as('bob', 'DELETE', '/stories?name__in=a2,b2')).status).toBe(403);
    expect((await as('bob', 'DELETE', '/stories')).status).toBe(403);
    expect(await stories()).toEqual(before);
  });

  it('answers one object as the bulk check does: others may not change it, the owner may', async () => {
    const [a1] = (await as('root', 'GET', '/stories?name=a1')).body.data;
    expect((await as('bob', 'PATCH', `/stories/${a1.id}`, { description: 'bob was here' })).status).toBe(403);
    expect((await as('bob', 'DELETE', `/stories/${a1.id}`)).status).toBe(403);
    expect((await as('alice', 'PATCH', `/stories/${a1.id}`, { description: 'as written' })).status).toBe(200);
  });

  it('lets a member change their own stories in bulk, and nobody else’s', async () => {
    const changed = await as('bob', 'PATCH', '/stories?name__in=b1,b2', { description: 'by bob' });
    expect(changed.status, changed.text).toBe(200);
    expect(await stories()).toEqual({ a1: 'as written', a2: 'as written', b1: 'by bob', b2: 'by bob' });
  });
});
