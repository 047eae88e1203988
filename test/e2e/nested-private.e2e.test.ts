/**
 * Objects served only below a parent are as private as their item rules say, also as the parent
 * of a nested create. fixtures/workshop: tasks live only at /projects/{id}/tasks/{tid}, each its
 * owner's alone, with a one-to-one checklist below it. A member once could create the checklist of
 * another member's task (the task's rules were taken from its nested collection route, which lets
 * members create), filling the only place its owner had for one and telling which hidden tasks
 * exist (201 against 404); and a checklist was found through any project's URL, not only its
 * task's (the grandparent in the URL was never looked at). SQLite and PostgreSQL, auth on, with the workshop's user code. Also
 * here, for its default body_limit (1 MB): a body that anyone may send and that once answered 500, and
 * one of 90,000 unknown keys whose 400 once took seconds to make.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api, type Reply } from '../support/http.js';
import { generatedProject, tool } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const OWNER = `import type { AclResult, AclRule, PrincipalWhere, RequestBy } from '../../lib/auth/index.js';
import { grant, user } from '../../lib/auth/index.js';
import type { Checklist } from '../../models/checklist.js';
import type { Task } from '../../models/task.js';
import type { User } from '../../models/user.js';

export function owner(_request: RequestBy<User>, object: Checklist | Task | undefined, rule: AclRule): AclResult {
  return object?.owner != null ? grant(rule, user(object.owner)) : undefined;
}

owner.where = (request: RequestBy<User>, _rule: AclRule): PrincipalWhere<Checklist | Task> =>
  request.user ? { owner: request.user.username } : false;
`;
// As a user writes them: each also checks the parent its object is created below, which a nested
// create gives the handler as the field its URL sets (it once gave none, and ran before the
// parent was found: a handler's error then stood in for the 404 of a hidden or missing parent).
const setOwner = (model: string, parent: string) => `import type { Set${model}OwnerEvent } from '../../events.js';
import { HttpError } from '../../lib/errors.js';

export async function set${model}Owner(event: Set${model}OwnerEvent): Promise<void> {
  if (typeof event.fields.${parent}?.new_value !== 'number') throw new HttpError(400, 'handler: no ${parent}');
  const user = event.view.request.user;
  if (user) event.setFieldValue('owner', String(user['username']));
}
`;

let dir: string;

beforeAll(async () => {
  dir = await generatedProject('workshop', 'e2e-nested-private');
  writeFileSync(join(dir, 'src/custom/principals/owner.ts'), OWNER);
  writeFileSync(join(dir, 'src/custom/handlers/set-task-owner.ts'), setOwner('Task', 'project'));
  writeFileSync(join(dir, 'src/custom/handlers/set-checklist-owner.ts'), setOwner('Checklist', 'task'));
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  if (build.exitCode !== 0) throw new Error(`build failed:\n${build.all}`);
}, 600_000);

describe.each(['sqlite', 'postgres'] as const)('a private task below a project on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;
  const cookies = new Map<string, string>();
  const as = (who: string, method: string, path: string, body?: unknown): Promise<Reply> =>
    api(method, path, body, { headers: { cookie: cookies.get(who)! } });

  beforeAll(async () => {
    database = await testDatabase(engine, dir, 'nested_private');
    service = await startService(
      dir,
      {
        ...database.env,
        SVC_AUTH: 'true',
        SVC_AUTH_TKT_SECRET: 'workshop-secret-0123456789abcdef0123456789',
        SVC_SYSTEM_USER: 'root',
        SVC_SYSTEM_PASSWORD: 'root-password',
        SVC_SYSTEM_EMAIL: 'root@example.com',
      },
      '/v1',
    );
    api = apiClient(service.origin, '/v1');
    const root = await api('POST', '/auth/login', { login: 'root', password: 'root-password' });
    expect(root.status, root.text).toBeLessThan(300);
    cookies.set('root', /auth_tkt=[^;]*/.exec(root.headers.get('set-cookie') ?? '')![0]);
    for (const name of ['ann', 'ben']) {
      const registered = await api('POST', '/auth/register', {
        username: name,
        email: `${name}@example.com`,
        password: 'password-123',
      });
      expect(registered.status, registered.text).toBe(201);
      cookies.set(name, /auth_tkt=[^;]*/.exec(registered.headers.get('set-cookie') ?? '')![0]);
    }
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("does not let a member create the checklist of another member's task, nor tell it from a missing one", async () => {
    const bens = (await as('ben', 'POST', '/projects', { name: "ben's" })).body.id as number;
    const anns = (await as('ann', 'POST', '/projects', { name: "ann's" })).body.id as number;
    const task = await as('ben', 'POST', `/projects/${bens}/tasks`, { title: 'private' });
    expect(task.status, task.text).toBe(201);
    expect(task.body.owner).toBe('ben');
    const key = task.body.id as number;

    // Through ben's project or her own: the task is one that does not exist, as a missing one is.
    const missing = await as('ann', 'POST', `/projects/${anns}/tasks/999999/checklist`, { items: ['x'] });
    expect([missing.status, missing.body.message]).toEqual([404, 'Task 999999 not found']);
    for (const project of [bens, anns]) {
      const taken = await as('ann', 'POST', `/projects/${project}/tasks/${key}/checklist`, { items: ['pwned'] });
      expect([taken.status, taken.body.message], taken.text).toEqual([404, `Task ${key} not found`]);
    }
    // OPTIONS of the task is decided as its GET is, by the task's own rules: hers to ask of her tasks only.
    const ofTask = await as('ann', 'OPTIONS', `/projects/${bens}/tasks/${key}`);
    expect([ofTask.status, ofTask.headers.get('allow')], ofTask.text).toEqual([403, null]);
    const ofMissing = await as('ann', 'OPTIONS', `/projects/${bens}/tasks/999999`);
    expect([ofMissing.status, ofMissing.body.message]).toEqual([404, 'Task 999999 not found']);
    expect((await as('ann', 'GET', `/projects/${bens}/tasks/${key}`)).status).toBe(403);
    const ofHis = await as('ben', 'OPTIONS', `/projects/${bens}/tasks/${key}`);
    expect([ofHis.status, ofHis.headers.get('allow')]).toEqual([200, 'GET, HEAD, OPTIONS, PATCH']);
    // Nor does OPTIONS below the task, which members may send, tell her: the same 404 as for a missing task.
    const asked = await as('ann', 'OPTIONS', `/projects/${bens}/tasks/${key}/checklist`);
    expect([asked.status, asked.body.message], asked.text).toEqual([404, `Task ${key} not found`]);
    // The place is still ben's to fill.
    const his = await as('ben', 'POST', `/projects/${bens}/tasks/${key}/checklist`, { items: ['mine'] });
    expect(his.status, his.text).toBe(201);
    const options = await as('ben', 'OPTIONS', `/projects/${bens}/tasks/${key}/checklist`);
    expect([options.status, options.headers.get('allow')]).toEqual([200, 'GET, HEAD, OPTIONS, POST']);
    expect(his.body).toMatchObject({ items: ['mine'], owner: 'ben' });
  });

  it("gives a nested create's handlers the parent's link, once the parent is found", async () => {
    const project = (await as('ann', 'POST', '/projects', { name: 'handled' })).body.id as number;
    const task = await as('ann', 'POST', `/projects/${project}/tasks`, { title: 'linked' });
    expect([task.status, task.body.project, task.body.owner], task.text).toEqual([201, project, 'ann']);
    const list = await as('ann', 'POST', `/projects/${project}/tasks/${task.body.id}/checklist`, { items: ['a'] });
    expect([list.status, list.body.task], list.text).toEqual([201, task.body.id]);
    // No handler runs below a parent that is not there: its 404 is the answer.
    const missing = await as('ann', 'POST', '/projects/999999/tasks', { title: 'nowhere' });
    expect([missing.status, missing.body.message], missing.text).toEqual([404, 'Project 999999 not found']);
  });

  it('finds a task only below its own project, as the task`s own URL does', async () => {
    const bens = (await as('ben', 'POST', '/projects', { name: "ben's" })).body.id as number;
    const anns = (await as('ann', 'POST', '/projects', { name: "ann's" })).body.id as number;
    const key = (await as('ben', 'POST', `/projects/${bens}/tasks`, { title: 'his' })).body.id as number;
    const created = await as('ben', 'POST', `/projects/${bens}/tasks/${key}/checklist`, { items: ['a'] });
    expect(created.status, created.text).toBe(201);

    // Below a project it is not in, or one that does not exist: no such task, for its owner too.
    for (const method of ['GET', 'POST']) {
      const body = method === 'POST' ? { items: ['b'] } : undefined;
      const elsewhere = await as('ben', method, `/projects/${anns}/tasks/${key}/checklist`, body);
      expect([elsewhere.status, elsewhere.body.message], elsewhere.text).toEqual([404, `Task ${key} not found`]);
      const nowhere = await as('ben', method, `/projects/999999/tasks/${key}/checklist`, body);
      expect([nowhere.status, nowhere.body.message], nowhere.text).toEqual([404, 'Project 999999 not found']);
    }
    expect((await as('ben', 'GET', `/projects/${anns}/tasks/${key}`)).status).toBe(404);
    const read = await as('ben', 'GET', `/projects/${bens}/tasks/${key}/checklist`);
    expect([read.status, read.body.items], read.text).toEqual([200, ['a']]);
  });

  it("does not say which hidden task a member's own checklist is linked to, when her write would take it from there", async () => {
    const anns = (await as('ann', 'POST', '/projects', { name: "ann's" })).body.id as number;
    const bens = (await as('ben', 'POST', '/projects', { name: "ben's" })).body.id as number;
    const [first, second] = [
      (await as('ann', 'POST', `/projects/${anns}/tasks`, { title: 'first' })).body.id as number,
      (await as('ann', 'POST', `/projects/${anns}/tasks`, { title: 'second' })).body.id as number,
    ];
    const his = (await as('ben', 'POST', `/projects/${bens}/tasks`, { title: 'his' })).body.id as number;
    const checklist = await as('ann', 'POST', `/projects/${anns}/tasks/${first}/checklist`, { items: ['hers'] });
    expect(checklist.status, checklist.text).toBe(201);
    // An admin moves her checklist to ben's task; it is still hers.
    const moved = await as('root', 'PATCH', `/projects/${bens}/tasks/${his}`, { checklist: checklist.body.id });
    expect(moved.status, moved.text).toBe(200);
    // Taking it back for her second task would take it from ben's task, which she may not see: refused,
    // and not said beside what she sees. (The checklist itself is refused: no route updates checklists,
    // so only admins move their links.)
    const taken = await as('ann', 'PATCH', `/projects/${anns}/tasks/${second}`, { checklist: checklist.body.id });
    expect([taken.status, taken.body.message, taken.body.errors], taken.text).toEqual([
      403,
      `you may not change Checklist ${checklist.body.id}, which this write would link or unlink`,
      [{ field: 'checklist', message: `moves the link of Checklist ${checklist.body.id}, which you may not change` }],
    ]);
    expect(taken.text).not.toContain(`Task ${his}`);
  });

  it('lists at most 100 problems: a body of 90,000 unknown keys answers a bounded 400', async () => {
    // It once compared every problem with every other (seconds of the event loop) and answered 7 MB.
    const keys = Object.fromEntries(Array.from({ length: 90_000 }, (_, i) => [`k${i}`, 1]));
    const reply = await as('ann', 'POST', '/projects', { name: 'many keys', ...keys });
    expect(reply.status, reply.text.slice(0, 300)).toBe(400);
    expect(reply.body.errors).toHaveLength(100);
    expect(reply.body.errors[0]).toEqual({ field: 'k0', message: 'is not a field here' });
    expect(reply.body.message).toMatch(/; and 89900 more problems$/);
    expect(reply.text.length).toBeLessThan(20_000);
  });

  it('walks a body with an escape and a list of 300,000 items for hidden keys without a 500', async () => {
    // An escape (`\\u0041`) makes the parser look for `__proto__` keys; spreading the list once overflowed the stack.
    const zeros = Array.from({ length: 300_000 }, () => '0').join(',');
    const raw = `{"name":"\\u0041","x":[${zeros}]}`;
    const headers = { 'content-type': 'application/json' };
    const anonymous = await api('POST', '/projects', undefined, { raw, headers });
    expect(anonymous.status, anonymous.text.slice(0, 300)).toBe(401);
    const member = await api('POST', '/projects', undefined, {
      raw,
      headers: { ...headers, cookie: cookies.get('ann')! },
    });
    expect(member.status, member.text.slice(0, 300)).toBe(400);
    expect(member.body.errors).toEqual([{ field: 'x', message: expect.any(String) }]);
  });
});
