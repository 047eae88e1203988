/**
 * Optimistic concurrency on items (issue 16): GET, PATCH and PUT answer with an ETag; a PATCH,
 * PUT or DELETE with If-Match is made only if the object is still as read (412 otherwise, nothing
 * changed), so of two clients that read one object and write it back, one wins and the other is
 * told, on every engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api } from '../support/http.js';
import { builtProject } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/api/v2';

describe.each(ENGINES)('If-Match on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;

  beforeAll(async () => {
    const dir = await builtProject('blog', 'e2e-if-match');
    database = await testDatabase(engine, dir, 'if_match');
    service = await startService(dir, database.env, BASE);
    api = apiClient(service.origin, BASE);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  const newAuthor = async (name: string) =>
    (await api('POST', '/authors', { name, email: `${name}@example.com`, karma: 0 })).body.id as number;
  const etag = async (id: number) => (await api('GET', `/authors/${id}`)).headers.get('etag')!;
  const ifMatch = (tag: string) => ({ headers: { 'if-match': tag } });

  it('answers GET with an ETag that a PATCH with If-Match accepts, and the PATCH answers the new one', async () => {
    const id = await newAuthor('tagged');
    const first = await etag(id);
    expect(first).toMatch(/^"[\w-]+"$/);
    expect(await etag(id)).toBe(first);
    // `_fields` changes the answer, not the tag.
    expect((await api('GET', `/authors/${id}?_fields=name`)).headers.get('etag')).toBe(first);
    const changed = await api('PATCH', `/authors/${id}`, { karma: 1 }, ifMatch(first));
    expect(changed.status).toBe(200);
    const second = changed.headers.get('etag');
    expect(second).not.toBe(first);
    expect(await etag(id)).toBe(second);
  });

  it('answers a GET whose If-None-Match names the ETag 304 without a body, until the object changes', async () => {
    const id = await newAuthor('cached');
    const tag = await etag(id);
    const read = (noneMatch: string) =>
      api('GET', `/authors/${id}`, undefined, { headers: { 'if-none-match': noneMatch } });
    for (const held of [tag, `W/${tag}`, `"other", ${tag}`, '*']) {
      const same = await read(held);
      expect([same.status, same.text, same.headers.get('etag')], held).toEqual([304, '', tag]);
    }
    expect((await read('"other"')).status).toBe(200);
    expect((await api('PATCH', `/authors/${id}`, { karma: 5 })).status).toBe(200);
    const changed = await read(tag);
    expect([changed.status, changed.body.karma]).toEqual([200, 5]);
    expect(changed.headers.get('etag')).not.toBe(tag);
  });

  it('answers a GET whose If-Match names another ETag 412 without the object, and one that names it 200', async () => {
    const id = await newAuthor('read-if-match');
    const stale = await etag(id);
    expect((await api('PATCH', `/authors/${id}`, { karma: 3 })).status).toBe(200);
    const now = await etag(id);
    const read = (headers: Record<string, string>) => api('GET', `/authors/${id}`, undefined, { headers });
    for (const match of [now, `"other", ${now}`, '*']) {
      const held = await read({ 'if-match': match });
      expect([held.status, held.body.karma], match).toEqual([200, 3]);
    }
    for (const match of [stale, `W/${now}`]) {
      const refused = await read({ 'if-match': match });
      expect([refused.status, refused.body.karma], match).toEqual([412, undefined]);
      expect(refused.body.message).toContain('no longer the one If-Match names');
    }
    // If-Match is evaluated first (RFC 9110 13.2.2): a stale one is 412, not the 304 If-None-Match would give.
    expect((await read({ 'if-match': stale, 'if-none-match': now })).status).toBe(412);
    expect((await read({ 'if-match': now, 'if-none-match': now })).status).toBe(304);
  });

  it('refuses a PATCH, PUT or DELETE whose If-Match is stale with 412, changing nothing', async () => {
    const id = await newAuthor('stale');
    const stale = await etag(id);
    expect((await api('PATCH', `/authors/${id}`, { karma: 5 })).status).toBe(200);
    const refused = await api('PATCH', `/authors/${id}`, { karma: 6 }, ifMatch(stale));
    expect(refused.status).toBe(412);
    expect(refused.body).toMatchObject({
      status_code: 412,
      message: expect.stringContaining('changed since you read it'),
    });
    expect(
      (await api('PUT', `/authors/${id}`, { name: 'stale', email: 'stale@example.com', karma: 7 }, ifMatch(stale)))
        .status,
    ).toBe(412);
    expect((await api('DELETE', `/authors/${id}`, undefined, ifMatch(stale))).status).toBe(412);
    expect((await api('GET', `/authors/${id}`)).body.karma).toBe(5);
    // A weak tag never matches (If-Match compares strongly); `*` matches any existing object.
    expect((await api('PATCH', `/authors/${id}`, { karma: 8 }, ifMatch(`W/${await etag(id)}`))).status).toBe(412);
    expect((await api('DELETE', `/authors/${id}`, undefined, ifMatch('*'))).status).toBe(200);
  });

  it('of two clients that read one object and write it back at once, one wins and the other gets 412', async () => {
    for (let round = 0; round < 5; round++) {
      const id = await newAuthor(`race-${round}`);
      const tag = await etag(id);
      const replies = await Promise.all([1, 2].map((karma) => api('PATCH', `/authors/${id}`, { karma }, ifMatch(tag))));
      const statuses = replies.map((r) => r.status).sort((a, b) => a - b);
      expect(statuses, replies.map((r) => r.text).join('\n')).toEqual([200, 412]);
      const winner = replies.find((r) => r.status === 200)!.body.karma;
      expect((await api('GET', `/authors/${id}`)).body.karma).toBe(winner);
    }
  });

  it('holds If-None-Match on the writes of an item, and both on the writes of a collection', async () => {
    const id = await newAuthor('conditional');
    const tag = await etag(id);
    const noneMatch = (value: string) => ({ headers: { 'if-none-match': value } });
    // Not while it is still the version named, nor where any version exists (`*`).
    for (const header of [tag, `W/${tag}`, '*']) {
      expect((await api('PATCH', `/authors/${id}`, { karma: 1 }, noneMatch(header))).status, header).toBe(412);
      expect(
        (await api('PUT', `/authors/${id}`, { name: 'x', email: 'x@example.com', karma: 2 }, noneMatch(header))).status,
        header,
      ).toBe(412);
      expect((await api('DELETE', `/authors/${id}`, undefined, noneMatch(header))).status, header).toBe(412);
    }
    expect((await api('GET', `/authors/${id}`)).body.karma).toBe(0);
    // Another version: the write is made.
    expect((await api('PATCH', `/authors/${id}`, { karma: 3 }, noneMatch('"another"'))).status).toBe(200);
    // A collection has no ETag: If-Match holds only as `*`, If-None-Match never as `*`.
    const where = `/authors?id=${id}`;
    expect((await api('DELETE', where, undefined, ifMatch('"stale"'))).status).toBe(412);
    expect((await api('PATCH', where, { karma: 4 }, ifMatch('"stale"'))).status).toBe(412);
    expect((await api('PATCH', where, { karma: 4 }, noneMatch('*'))).status).toBe(412);
    expect(
      (await api('POST', '/authors', { name: 'y', email: 'y@example.com', karma: 0 }, ifMatch('"x"'))).status,
    ).toBe(412);
    expect((await api('GET', `/authors/${id}`)).body.karma).toBe(3);
    expect((await api('PATCH', where, { karma: 5 }, ifMatch('*'))).status).toBe(200);
    expect((await api('GET', `/authors/${id}`)).body.karma).toBe(5);
    // A merge into an attribute answers no ETag either.
    expect((await api('POST', `/authors/${id}/links`, { site: 'x' }, ifMatch('"stale"'))).status).toBe(412);
    expect((await api('POST', `/authors/${id}/links`, { site: 'x' }, noneMatch('*'))).status).toBe(412);
    expect((await api('GET', `/authors/${id}/links`)).body).not.toHaveProperty('site');
    expect((await api('POST', `/authors/${id}/links`, { site: 'y' }, ifMatch('*'))).status).toBe(201);
  });
});
