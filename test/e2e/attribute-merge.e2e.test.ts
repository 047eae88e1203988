/**
 * A POST on an attribute route (`/notes/{id}/photos`) merges into a list or dict field: the value
 * it leaves must meet the field's JSON Schema as a PATCH of the whole value must (`maxItems`, an
 * item's `maxLength`, `maxProperties`). Before, the merge checked only the items' type and
 * choices: a probe stored 14 photos where 5 were allowed, and one of 250,000 characters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from '../support/databases.js';
import { raml } from '../support/files.js';
import { apiClient, type Api } from '../support/http.js';
import { projectOf, tool } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const API = raml(`title: Notes
baseUri: http://{host}/{version}
version: v1
/notes:
  get:
  post:
    body:
      application/json:
        schema: !include note.json
  /{id}:
    get:
    patch:
    /photos:
      get:
      post:
    /labels:
      get:
      post:
`);

const NOTE = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    title: { _db_settings: { type: 'string', required: true } },
    photos: {
      type: 'array',
      maxItems: 3,
      items: { type: 'string', maxLength: 10 },
      _db_settings: { type: 'list', item_type: 'string' },
    },
    labels: { type: 'object', maxProperties: 2, _db_settings: { type: 'dict' } },
  },
});

let database: TestDatabase;
let service: RunningService;
let api: Api;

beforeAll(async () => {
  const dir = await projectOf({ 'api.raml': API, 'note.json': NOTE }, 'e2e-attribute-merge');
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  expect(build.exitCode, build.all).toBe(0);
  database = await testDatabase('sqlite', dir, 'attribute_merge');
  service = await startService(dir, database.env, '/v1');
  api = apiClient(service.origin, '/v1');
}, 600_000);

afterAll(async () => {
  await service?.stop();
  await database?.drop();
});

describe('a merge into a list or dict field', () => {
  it('refuses a list the merge would make longer than maxItems, and keeps it as it was', async () => {
    const note = await api('POST', '/notes', { title: 'trip', photos: ['a.jpg', 'b.jpg'] });
    expect(note.status, note.text).toBe(201);
    const id = note.body['id'];
    expect((await api('POST', `/notes/${id}/photos`, { 'c.jpg': true })).status).toBe(201);

    const tooMany = await api('POST', `/notes/${id}/photos`, { 'd.jpg': true });
    expect(tooMany.status, tooMany.text).toBe(400);
    expect(tooMany.body['errors']).toEqual([{ field: 'photos', message: 'must hold at most 3 items' }]);
    // As a PATCH of the whole list says it.
    const patched = await api('PATCH', `/notes/${id}`, { photos: ['a.jpg', 'b.jpg', 'c.jpg', 'd.jpg'] });
    expect(patched.status).toBe(400);
    expect(patched.body['errors']).toEqual(tooMany.body['errors']);
    expect((await api('GET', `/notes/${id}/photos`)).body).toEqual(['a.jpg', 'b.jpg', 'c.jpg']);

    // Removing one makes room again.
    expect((await api('POST', `/notes/${id}/photos`, { '-a.jpg': true, 'd.jpg': true })).status).toBe(201);
    expect((await api('GET', `/notes/${id}/photos`)).body).toEqual(['b.jpg', 'c.jpg', 'd.jpg']);
  });

  it("refuses an item longer than the items' maxLength", async () => {
    const id = (await api('POST', '/notes', { title: 'long' })).body['id'];
    const long = await api('POST', `/notes/${id}/photos`, { 'much-too-long.jpg': true });
    expect(long.status, long.text).toBe(400);
    expect(long.body['errors']).toEqual([{ field: 'photos.0', message: 'must be at most 10 characters long' }]);
    expect((await api('GET', `/notes/${id}/photos`)).body).toEqual([]);
  });

  it('refuses a dict the merge would give more keys than maxProperties', async () => {
    const id = (await api('POST', '/notes', { title: 'labelled', labels: { a: 1 } })).body['id'];
    expect((await api('POST', `/notes/${id}/labels`, { b: 2 })).status).toBe(201);
    // A key it already has is changed, not added.
    expect((await api('POST', `/notes/${id}/labels`, { b: 3 })).status).toBe(201);
    const third = await api('POST', `/notes/${id}/labels`, { c: 3 });
    expect(third.status, third.text).toBe(400);
    expect(third.body['errors']).toEqual([{ field: 'labels', message: 'must hold at most 2 keys' }]);
    expect((await api('GET', `/notes/${id}/labels`)).body).toEqual({ a: 1, b: 3 });
    // `"-a"` takes a key out, as Ramses did: then there is room again.
    expect((await api('POST', `/notes/${id}/labels`, { '-a': true, c: 3 })).status).toBe(201);
    expect((await api('GET', `/notes/${id}/labels`)).body).toEqual({ b: 3, c: 3 });
  });
});
