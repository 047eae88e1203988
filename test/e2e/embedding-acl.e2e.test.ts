/**
 * Embedding under ACLs on every engine, with fixtures/embedding: a team embeds its
 * members (two levels: each member embeds its badge) and its note. Members are denied to the
 * group "outsiders"; notes and badges have no x-ACL (admins only). An embedded object the caller
 * may not view is shown as its key where the link is the object's own field (a team's note, a
 * member's badge), and is left out where the link is kept in the other object's row (a team's
 * members), on every route that embeds: collection and item reads, nested collections, create and
 * update answers, and the login answer. A write of such a list leaves the hidden objects linked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api } from '../support/http.js';
import { builtProject } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/v1';
const PASSWORD = 'password-123';

type Rec = Record<string, unknown>;
/** An object the service created: its key (a number on SQL engines, a string on MongoDB) goes into URLs. */
type Created = Rec & { readonly id: number | string };

describe.each(ENGINES)('embedding under ACLs on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;
  const cookies: Record<string, Record<string, string>> = {};
  let team: Created;
  let member: Created;
  let badge: Created;
  let note: Created;

  const as = (who: string) => ({ headers: cookies[who] ?? {} });
  const login = async (username: string, password: string) => {
    const reply = await api('POST', '/auth/login', { login: username, password });
    expect(reply.status, reply.text).toBe(200);
    cookies[username] = { cookie: /auth_tkt=[^;]*/.exec(reply.headers.get('set-cookie') ?? '')![0] };
    return reply;
  };

  beforeAll(async () => {
    const dir = await builtProject('embedding', 'e2e-embedding');
    database = await testDatabase(engine, dir, 'embedding');
    service = await startService(
      dir,
      {
        ...database.env,
        SVC_AUTH: 'true',
        SVC_AUTH_TKT_SECRET: 'embedding-secret-0123456789abcdef0123456789',
        SVC_SYSTEM_USER: 'root',
        SVC_SYSTEM_PASSWORD: 'root-password',
        SVC_SYSTEM_EMAIL: 'root@example.com',
      },
      BASE,
    );
    api = apiClient(service.origin, BASE);
    await login('root', 'root-password');
    for (const [username, groups] of [
      ['olga', ['user', 'outsiders']],
      ['ivan', ['user']],
    ] as const) {
      const created = await api(
        'POST',
        '/users',
        { username, email: `${username}@example.com`, password: PASSWORD, groups },
        as('root'),
      );
      expect(created.status, created.text).toBe(201);
      await login(username, PASSWORD);
    }
    badge = (await api('POST', '/badges', { label: 'gold' }, as('root'))).body;
    note = (await api('POST', '/notes', { text: 'admins only' }, as('root'))).body;
    member = (await api('POST', '/members', { name: 'mia', badge: badge['id'] }, as('root'))).body;
    team = (await api('POST', '/teams', { name: 'red', members: [member['id']], note: note['id'] }, as('root'))).body;
  });

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  /** What a team shows of its members and note: objects (with the member's badge) or keys. */
  const shape = (t: Rec) => ({
    members: (t['members'] as unknown[]).map((m) =>
      typeof m === 'object'
        ? { name: (m as Rec)['name'], badge: typeof (m as Rec)['badge'] === 'object' ? 'object' : (m as Rec)['badge'] }
        : m,
    ),
    note: typeof t['note'] === 'object' && t['note'] !== null ? 'object' : t['note'],
  });

  it('admins see every embedded object, two levels deep', async () => {
    const reply = await api('GET', `/teams/${team['id']}`, undefined, as('root'));
    expect(shape(reply.body)).toEqual({ members: [{ name: 'mia', badge: 'object' }], note: 'object' });
  });

  it('anonymous callers see members (everyone may view them) but the admin-only note and badge as keys', async () => {
    const reply = await api('GET', `/teams/${team['id']}`);
    expect(reply.status, reply.text).toBe(200);
    expect(shape(reply.body)).toEqual({ members: [{ name: 'mia', badge: badge['id'] }], note: note['id'] });
    expect(JSON.stringify(reply.body)).not.toContain('admins only');
    expect(JSON.stringify(reply.body)).not.toContain('gold');
  });

  it('a deny rule on the embedded model hides its objects, on every route that embeds', async () => {
    // Not even their keys: the list would tell which members exist, and how many.
    const hidden = { members: [], note: note['id'] };
    expect((await api('GET', `/members/${member['id']}`, undefined, as('olga'))).status).toBe(403);
    expect(shape((await api('GET', `/teams/${team['id']}`, undefined, as('olga'))).body)).toEqual(hidden);
    const listed = await api('GET', '/teams', undefined, as('olga'));
    expect(listed.body.data.map(shape)).toEqual([hidden]);
    const patched = await api('PATCH', `/teams/${team['id']}`, { name: 'red!' }, as('olga'));
    expect(patched.status, patched.text).toBe(200);
    expect(shape(patched.body)).toEqual(hidden);
    // Sending back the members she was shown (none) unlinks none of those she was not.
    const resent = await api('PATCH', `/teams/${team['id']}`, { members: [] }, as('olga'));
    expect([resent.status, shape(resent.body)], resent.text).toEqual([200, hidden]);
    expect(shape((await api('GET', `/teams/${team['id']}`, undefined, as('root'))).body).members).toEqual([
      { name: 'mia', badge: 'object' },
    ]);
    // Moving a member to another team changes the member: olga may not (she may not even view it,
    // so it is answered as a member that does not exist), an admin may; olga then reads the new
    // team without the member embedded.
    const refused = await api('POST', '/teams', { name: 'blue', members: [member['id']] }, as('olga'));
    expect([refused.status, refused.body.errors], refused.text).toEqual([
      400,
      [{ field: 'members', message: `Member ${String(member['id'])} not found` }],
    ]);
    const moved = await api('POST', '/teams', { name: 'blue', members: [member['id']] }, as('root'));
    expect(moved.status, moved.text).toBe(201);
    const created = await api('GET', `/teams/${moved.body.id}`, undefined, as('olga'));
    expect(shape(created.body)).toEqual({ members: [], note: null });
    // The member moved to the new team; ivan, who may view members, sees it embedded there.
    expect(shape((await api('GET', `/teams/${created.body.id}`, undefined, as('ivan'))).body)).toEqual({
      members: [{ name: 'mia', badge: badge['id'] }],
      note: null,
    });
    expect(JSON.stringify(listed.body) + JSON.stringify(patched.body) + JSON.stringify(created.body)).not.toContain(
      'mia',
    );
  });

  it('a nested collection follows the ACL of its own route', async () => {
    const [blue] = (await api('GET', '/teams?name=blue', undefined, as('root'))).body.data;
    expect((await api('GET', `/teams/${blue.id}/members`, undefined, as('olga'))).status).toBe(403);
    const seen = await api('GET', `/teams/${blue.id}/members`, undefined, as('ivan'));
    expect(seen.body.data.map((m: Rec) => m['badge'])).toEqual([badge['id']]);
  });
});
