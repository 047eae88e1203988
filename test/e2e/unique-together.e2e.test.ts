/**
 * `_unique_together` (docs/schema.md): a rating per listener and episode, the episode a link. Of
 * concurrent creates of one pair exactly one lands and the others are 409s naming the pair, on
 * every engine (a probe's handler that looked for a duplicate first let 3 of 10 through on
 * PostgreSQL); a change into a taken pair is refused and changes nothing; a rating with no
 * listener is in no pair.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { raml } from '../support/files.js';
import { apiClient, type Api } from '../support/http.js';
import { projectOf, tool } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const API = raml(`title: Ratings
baseUri: http://{host}/{version}
version: v1
/episodes:
  get:
  post:
    body:
      application/json:
        schema: !include episode.json
/ratings:
  get:
  post:
    body:
      application/json:
        schema: !include rating.json
  /{id}:
    get:
    patch:
`);

const EPISODE = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    title: { type: 'string', _db_settings: { type: 'string', required: true } },
    ratings: { _db_settings: { type: 'relationship', document: 'Rating', backref_name: 'episode' } },
  },
});

const RATING = JSON.stringify({
  type: 'object',
  _unique_together: [['episode', 'listener']],
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    episode_id: {
      _db_settings: {
        type: 'foreign_key',
        ref_document: 'Episode',
        ref_column: 'episode.id',
        ref_column_type: 'id_field',
      },
    },
    listener: { type: ['string', 'null'], _db_settings: { type: 'string' } },
    stars: { type: 'integer', _db_settings: { type: 'integer', min_value: 1, max_value: 5 } },
  },
});

let dir: string;

beforeAll(async () => {
  dir = await projectOf({ 'api.raml': API, 'episode.json': EPISODE, 'rating.json': RATING }, 'e2e-unique-together');
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  expect(build.exitCode, build.all).toBe(0);
}, 600_000);

describe.each(ENGINES)('unique together, on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;

  beforeAll(async () => {
    database = await testDatabase(engine, dir, 'unique_together');
    service = await startService(dir, database.env, '/v1');
    api = apiClient(service.origin, '/v1');
    for (const title of ['Pilot', 'Finale']) expect((await api('POST', '/episodes', { title })).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('lets one of many concurrent creates of a pair land, and answers the others 409 naming the pair', async () => {
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        api('POST', '/ratings', { episode: 1, listener: 'lena', stars: 1 + (n % 5) }),
      ),
    );
    expect(replies.map((r) => r.status).sort((a, b) => a - b)).toEqual([201, ...Array<number>(9).fill(409)]);
    const refused = replies.find((r) => r.status === 409)!.body;
    expect(refused.message).toBe(
      'episode and listener must be unique together, and another object has the same episode and listener',
    );
    expect(refused.errors).toEqual([
      { field: 'episode', message: 'is already taken together with listener' },
      { field: 'listener', message: 'is already taken together with episode' },
    ]);
    expect((await api('GET', '/ratings?_count')).body).toEqual({ count: 1 });
    // Each value alone may repeat.
    expect((await api('POST', '/ratings', { episode: 2, listener: 'lena', stars: 4 })).status).toBe(201);
    expect((await api('POST', '/ratings', { episode: 1, listener: 'max', stars: 4 })).status).toBe(201);
  });

  it('refuses a change into a taken pair, and changes nothing', async () => {
    const max = (await api('GET', '/ratings?listener=max&episode=1')).body.data[0];
    const moved = await api('PATCH', `/ratings/${max.id}`, { listener: 'lena', stars: 1 });
    expect(moved.status, moved.text).toBe(409);
    expect((await api('GET', `/ratings/${max.id}`)).body).toMatchObject({ listener: 'max', stars: 4, episode: 1 });
    expect((await api('PATCH', `/ratings/${max.id}`, { episode: 2 })).status).toBe(200);
  });

  it('puts a rating with no listener in no pair', async () => {
    for (let i = 0; i < 2; i++) expect((await api('POST', '/ratings', { episode: 1, stars: 3 })).status).toBe(201);
    expect((await api('GET', '/ratings?_count&episode=1')).body).toEqual({ count: 3 });
  });
});
