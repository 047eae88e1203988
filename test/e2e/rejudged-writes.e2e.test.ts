/**
 * A write the ACL allows by its object (an owner's principal) is allowed by the object as it is
 * when written, not as it was read: another write may change it in between. Two probes' races on
 * PostgreSQL: an owner's PATCH of an appointment landed after a vet had moved it to another owner,
 * and a member's collection DELETE deleted products an admin had just given to someone else (its
 * delete events naming the old owner). A collection change also takes only what its filter still
 * selects: one of purchase orders still `open` deleted those another request had just marked
 * received. Now an item write reads its object again under a row lock in its transaction and is
 * judged on that, and a collection change locks what it selected and reads it again.
 *
 * Deterministic: the principal waits while it judges an object whose note says `slow`, and the
 * admin's change is sent in that wait, so that it lands between the first read and the write.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, storedEvents, testDatabase, type TestDatabase } from '../support/databases.js';
import { securedRaml, userSchema } from '../support/files.js';
import { apiClient, type Api } from '../support/http.js';
import { rootAuthEnv } from '../support/library.js';
import { projectOf, tool } from '../support/project.js';
import { memberTokens } from '../support/served.js';
import { startService, type RunningService } from '../support/server.js';

const API = securedRaml(
  'Visits',
  {
    visits_acl: {
      collection: 'allow g:admin all\nallow authenticated view, update, delete',
      item: 'allow g:admin all\nallow {{owner}} view, update, delete\ndeny everyone all',
    },
    users_acl: { collection: 'allow g:admin all', item: 'allow g:admin all' },
  },
  `
/users:
  securedBy: [users_acl]
  post:
    body:
      application/json:
        schema: !include user.json
/visits:
  securedBy: [visits_acl]
  get:
  post:
    body:
      application/json:
        schema: !include visit.json
  patch:
  delete:
  /{id}:
    get:
    patch:
    delete:
    /tags:
      get:
      post:
`,
);

const VISIT = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    note: { _db_settings: { type: 'string' } },
    status: { _db_settings: { type: 'choice', choices: ['open', 'done'], default: 'open' } },
    owner: { _db_settings: { type: 'string' } },
    tags: { _db_settings: { type: 'list', item_type: 'string', default: [] } },
  },
});

/** The owner's principal, which takes its time over an object whose note says `slow`. */
const OWNER = `import { grant, user, type AclResult, type AclRule, type PrincipalWhere, type RequestBy } from '../../lib/auth/index.js';
import type { User } from '../../models/user.js';
import type { Visit } from '../../models/visit.js';

export async function owner(_request: RequestBy<User>, object: Visit | undefined, rule: AclRule): Promise<AclResult> {
  if (object?.note === 'slow') await new Promise((resolve) => setTimeout(resolve, ${400}));
  return object?.owner ? grant(rule, user(object.owner)) : undefined;
}

owner.where = (request: RequestBy<User>, _rule: AclRule): PrincipalWhere<Visit> =>
  request.user ? { owner: String(request.user.username) } : false;
`;

/** Sent while the other request is being judged (the principal waits 400 ms): it lands in between. */
const MEANWHILE = 150;

let dir: string;

beforeAll(async () => {
  dir = await projectOf({ 'api.raml': API, 'user.json': userSchema(), 'visit.json': VISIT }, 'e2e-rejudged-writes');
  writeFileSync(join(dir, 'src/custom/principals/owner.ts'), OWNER);
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  expect(build.exitCode, build.all).toBe(0);
}, 600_000);

describe.each(ENGINES)('writes judged by their object, beside a change of it, on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;
  let tokens: Map<string, string>;
  const as = (name: string) => ({ headers: { authorization: tokens.get(name)! } });

  /** A visit of `owner`'s, made by the admin. */
  const visit = async (owner: string, note: string, status = 'open') => {
    const made = await api('POST', '/visits', { owner, note, status }, as('root'));
    expect(made.status, made.text).toBe(201);
    return made.body['id'] as number;
  };

  beforeAll(async () => {
    database = await testDatabase(engine, dir, 'rejudged_writes');
    service = await startService(dir, { ...database.env, ...rootAuthEnv() }, '/v1');
    api = apiClient(service.origin, '/v1');
    tokens = await memberTokens(api, ['alice', 'bob']);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  /** The stored events of type `type` of the visit `id`, in the order they were appended. */
  const eventsOf = async (id: number, type: string) => {
    const events = JSON.parse(await storedEvents(engine, database.url, dir)) as Record<string, unknown>[];
    return events
      .filter((e) => e['type'] === type && String(e['pk']) === String(id))
      .sort((a, b) => Number(a['seq'] ?? a['_id']) - Number(b['seq'] ?? b['_id']))
      .map(
        (e) =>
          (typeof e['data'] === 'string' ? JSON.parse(e['data']) : e['data']) as { object: Record<string, unknown> },
      );
  };

  it("an owner's PATCH and DELETE of a visit given to another owner meanwhile: refused, or made before it", async () => {
    for (const method of ['PATCH', 'DELETE'] as const) {
      const id = await visit('alice', 'slow');
      const write = api(method, `/visits/${id}`, method === 'PATCH' ? { status: 'done' } : undefined, as('alice'));
      await sleep(MEANWHILE);
      const given = await api('PATCH', `/visits/${id}`, { owner: 'bob' }, as('root'));
      const written = await write;
      const now = await api('GET', `/visits/${id}`, undefined, as('root'));
      // Whichever came first, the other was judged on what it left.
      const aliceFirst = method === 'DELETE' ? now.status === 404 : now.body['status'] === 'done';
      if (aliceFirst) expect([written.status, given.status], method).toEqual([200, method === 'DELETE' ? 404 : 200]);
      else {
        // Given to bob first: alice's write is judged on bob's visit, and refused.
        expect([written.status, given.status], `${method}: ${written.text}`).toEqual([403, 200]);
        expect([now.body['owner'], now.body['status']]).toEqual(['bob', 'open']);
      }
    }
  });

  it('a delete’s event is of the object as the delete found it, not as read before it', async () => {
    const id = await visit('alice', 'slow');
    const deleting = api('DELETE', `/visits/${id}`, undefined, as('alice'));
    await sleep(MEANWHILE);
    // Still alice's visit: her delete goes on, of the visit as it is now.
    const marked = await api('PATCH', `/visits/${id}`, { status: 'done' }, as('root'));
    expect((await deleting).status).toBe(200);
    const [deleted] = await eventsOf(id, 'Visit.delete');
    // The admin's change came first (the principal waits), unless a loaded machine held it past the delete.
    expect(deleted!.object['status']).toBe(marked.status === 200 ? 'done' : 'open');
  });

  it("an owner's merge into a list field of a visit given to another owner meanwhile: judged on bob's visit, refused", async () => {
    const id = await visit('alice', 'slow');
    const merge = api('POST', `/visits/${id}/tags`, { urgent: true }, as('alice'));
    await sleep(MEANWHILE);
    const given = await api('PATCH', `/visits/${id}`, { owner: 'bob' }, as('root'));
    const merged = await merge;
    const now = await api('GET', `/visits/${id}`, undefined, as('root'));
    expect([given.status, now.body['owner']]).toEqual([200, 'bob']);
    if (merged.status === 201) {
      // A loaded machine held the admin's change past the merge: the merge was of alice's visit.
      const tagged = (await eventsOf(id, 'Visit.update')).find((e) =>
        (e.object['tags'] as string[]).includes('urgent'),
      );
      expect(tagged!.object['owner']).toBe('alice');
    } else expect([merged.status, now.body['tags']], merged.text).toEqual([403, []]);
  });

  it("a member's collection DELETE and PATCH of their visits, some given to another owner meanwhile: never those", async () => {
    for (const method of ['DELETE', 'PATCH'] as const) {
      const note = 'slow';
      const ids = [await visit('alice', note), await visit('alice', note), await visit('alice', note)];
      const query = `/visits?note=${note}&owner=alice`;
      const write = api(method, query, method === 'PATCH' ? { status: 'done' } : undefined, as('alice'));
      await sleep(MEANWHILE);
      const given = await api('PATCH', `/visits/${ids[1]}`, { owner: 'bob' }, as('root'));
      const written = await write;
      expect(written.status, written.text).toBe(200);
      const bobs = await api('GET', `/visits/${ids[1]}`, undefined, as('root'));
      const aliceFirst = method === 'DELETE' ? bobs.status === 404 : bobs.body['status'] === 'done';
      if (aliceFirst)
        expect([given.status, written.body['count']], method).toEqual([method === 'DELETE' ? 404 : 200, 3]);
      else {
        // Given to bob before alice's change took it: left as bob has it.
        expect([given.status, written.body['count']], method).toEqual([200, 2]);
        expect([bobs.body['owner'], bobs.body['status']], method).toEqual(['bob', 'open']);
      }
      // Those still alice's went as asked.
      for (const id of [ids[0], ids[2]]) {
        const left = await api('GET', `/visits/${id}`, undefined, as('root'));
        if (method === 'DELETE') expect(left.status).toBe(404);
        else expect(left.body['status']).toBe('done');
      }
      await api('DELETE', `/visits?note=${note}`, undefined, as('root'));
    }
  });

  it('a collection change takes only what its filter still selects: not a visit marked done meanwhile', async () => {
    for (const method of ['DELETE', 'PATCH'] as const) {
      const ids = [await visit('alice', 'slow'), await visit('alice', 'slow')];
      const write = api(
        method,
        '/visits?note=slow&status=open',
        method === 'PATCH' ? { note: 'closed by filter' } : undefined,
        as('alice'),
      );
      await sleep(MEANWHILE);
      const marked = await api('PATCH', `/visits/${ids[0]}`, { status: 'done' }, as('root'));
      const written = await write;
      expect(written.status, written.text).toBe(200);
      const done = await api('GET', `/visits/${ids[0]}`, undefined, as('root'));
      const aliceFirst = method === 'DELETE' ? done.status === 404 : done.body['note'] === 'closed by filter';
      if (aliceFirst)
        expect([marked.status, written.body['count']], method).toEqual([method === 'DELETE' ? 404 : 200, 2]);
      else {
        // Marked done first: the filter no longer selects it, and it stays as the admin left it.
        expect([marked.status, written.body['count']], method).toEqual([200, 1]);
        expect([done.body['status'], done.body['note']], method).toEqual(['done', 'slow']);
      }
      await api('DELETE', '/visits?note=slow', undefined, as('root'));
      await api('DELETE', '/visits?note=closed%20by%20filter', undefined, as('root'));
    }
  });
});
