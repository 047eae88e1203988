/**
 * Two instances of one service on one database (issue 16), on PostgreSQL and on one SQLite file:
 * concurrent writes through both stay consistent — a unique value is taken once, changes of
 * different fields of one object both land, every acknowledged create is there, and two bulk
 * changes of one batch leave it all one or all the other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api } from '../support/http.js';
import { builtProject } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/api/v2';

describe.each(['sqlite', 'postgres'] as const)('two instances on one %s database', (engine) => {
  let database: TestDatabase;
  const services: RunningService[] = [];
  let a: Api;
  let b: Api;

  beforeAll(async () => {
    const dir = await builtProject('blog', 'e2e-two-instances');
    database = await testDatabase(engine, dir, 'two_instances');
    // One after the other: the first creates the schema, the second finds it migrated.
    for (let i = 0; i < 2; i++) services.push(await startService(dir, database.env, BASE));
    [a, b] = services.map((s) => apiClient(s.origin, BASE)) as [Api, Api];
  }, 120_000);

  afterAll(async () => {
    for (const service of services) await service.stop();
    await database?.drop();
  });

  const author = (api: Api, name: string, extra: Record<string, unknown> = {}) =>
    api('POST', '/authors', { name, email: `${name}@example.com`, ...extra });

  it('a unique value is taken once: 20 registrations of one email through both, one 201 and 19 409s', async () => {
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b)('POST', '/authors', { name: `same ${i}`, email: 'same@example.com' })));
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
  });

  it('changes of different fields of one object through both instances both land, for 25 objects at once', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 25; i++) ids.push((await author(a, `fields-${i}`, { karma: 0 })).body.id);
    await Promise.all(ids.flatMap((id) => [a('PATCH', `/authors/${id}`, { bio: `bio ${id}` }), b('PATCH', `/authors/${id}`, { karma: id })]));
    for (const id of ids) expect((await b('GET', `/authors/${id}`)).body).toMatchObject({ bio: `bio ${id}`, karma: id });
  });

  it('every create acknowledged by either instance is there, each with its own key', async () => {
    const replies = await Promise.all(Array.from({ length: 60 }, (_, i) => author(i % 2 ? a : b, `many-${i}`)));
    expect(replies.every((r) => r.status === 201)).toBe(true);
    const ids = replies.map((r) => r.body.id);
    expect(new Set(ids).size).toBe(60);
    const listed = (await a('GET', '/authors?name__startswith=many-&_limit=100&_fields=id')).body.data.map((o: { id: number }) => o.id);
    expect(listed.sort((x: number, y: number) => x - y)).toEqual([...ids].sort((x, y) => x - y));
  });

  it('two bulk changes of one batch at once leave it all one value or all the other', async () => {
    for (let i = 0; i < 30; i++) await author(a, `batch-${i}`, { karma: 0 });
    for (let round = 1; round <= 5; round++) {
      const [one, two] = await Promise.all([a('PATCH', '/authors?name__startswith=batch-', { karma: round * 10 + 1 }), b('PATCH', '/authors?name__startswith=batch-', { karma: round * 10 + 2 })]);
      expect([one.status, two.status]).toEqual([200, 200]);
      const karmas = new Set((await b('GET', '/authors?name__startswith=batch-&_limit=100&_fields=karma')).body.data.map((o: { karma: number }) => o.karma));
      expect(karmas.size, `round ${round}: ${[...karmas].join(', ')}`).toBe(1);
    }
  });
});
