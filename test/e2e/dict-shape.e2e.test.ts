/**
 * A dict field's JSON Schema shape (`properties`, `required`, `additionalProperties`, and the
 * schemas of its values however deep) is checked on every write and stated in the OpenAPI
 * document, as docs/schema.md says of JSON Schema keywords. Before, a probe's chapter markers
 * were stored whatever they held (`{"markers": "nope"}`), and the document said only "an object".
 * The project's own tests and samples meet the shape too (another probe's fresh project failed its
 * typecheck and four of its tests on `{ key: 'value' }`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from '../support/databases.js';
import { raml } from '../support/files.js';
import { apiClient, type Api } from '../support/http.js';
import { projectOf, tool } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const API = raml(`title: Podcasts
baseUri: http://{host}/{version}
version: v1
/episodes:
  get:
  post:
    body:
      application/json:
        schema: !include episode.json
  /{id}:
    get:
    patch:
    /chapters:
      get:
      post:
    /hours:
      get:
      post:
    /codes:
      get:
      post:
`);

const MARKER = {
  type: 'object',
  required: ['start', 'title'],
  additionalProperties: false,
  properties: { start: { type: 'integer', minimum: 0 }, title: { type: 'string', maxLength: 40 } },
};

const EPISODE = JSON.stringify({
  type: 'object',
  definitions: { marker: MARKER },
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    title: { _db_settings: { type: 'string', required: true } },
    chapters: {
      type: ['object', 'null'],
      description: 'chapter markers, in order',
      required: ['markers'],
      properties: { markers: { type: 'array', maxItems: 3, items: { $ref: '#/definitions/marker' } } },
      _db_settings: { type: 'dict' },
    },
    // Keys named by propertyNames: the merge test adds a key it lists (a new user's opening hours failed it).
    hours: {
      type: ['object', 'null'],
      propertyNames: { enum: ['mon', 'tue'] },
      additionalProperties: { $ref: '#/definitions/marker' },
      _db_settings: { type: 'dict' },
    },
    // Keys by a pattern, which no sample is sure to meet: the merge test merges the sample's own value.
    codes: {
      type: ['object', 'null'],
      propertyNames: { pattern: '^[A-Z]{2}$' },
      additionalProperties: { type: 'string' },
      _db_settings: { type: 'dict' },
    },
  },
});

let dir: string;
let database: TestDatabase;
let service: RunningService;
let api: Api;

beforeAll(async () => {
  dir = await projectOf({ 'api.raml': API, 'episode.json': EPISODE }, 'e2e-dict-shape');
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  expect(build.exitCode, build.all).toBe(0);
  database = await testDatabase('sqlite', dir, 'dict_shape');
  service = await startService(dir, database.env, '/v1');
  api = apiClient(service.origin, '/v1');
}, 600_000);

afterAll(async () => {
  await service?.stop();
  await database?.drop();
});

describe("a dict field's shape", () => {
  const markers = [
    { start: 0, title: 'Intro' },
    { start: 95, title: 'Interview' },
  ];

  it('takes a value of its shape, and gives it back as sent', async () => {
    const made = await api('POST', '/episodes', { title: 'One', chapters: { markers } });
    expect(made.status, made.text).toBe(201);
    expect((await api('GET', `/episodes/${String(made.body['id'])}`)).body['chapters']).toEqual({ markers });
    expect((await api('POST', '/episodes', { title: 'None', chapters: null })).status).toBe(201);
  });

  it.each([
    [{ markers: 'nope' }, 'chapters.markers', 'must be a list'],
    [{ markers: [{ start: 'x', title: 'Intro' }] }, 'chapters.markers.0.start', 'must be a whole number'],
    [{ markers: [{ start: 5 }] }, 'chapters.markers.0.title', 'is required'],
    [{ markers: [{ start: 5, title: 'A', colour: 'red' }] }, 'chapters.markers.0.colour', 'is not a field here'],
    [{ markers: [{ start: -1, title: 'A' }] }, 'chapters.markers.0.start', 'must be at least 0'],
    [{ marks: [] }, 'chapters.markers', 'is required'],
  ])('refuses %j, naming where it is wrong', async (chapters, field, message) => {
    const created = await api('POST', '/episodes', { title: 'Bad', chapters });
    expect(created.status, created.text).toBe(400);
    expect(created.body['errors']).toContainEqual({ field, message });
    // A change says the same, and changes nothing.
    const id = (await api('POST', '/episodes', { title: 'Kept', chapters: { markers } })).body['id'];
    const patched = await api('PATCH', `/episodes/${String(id)}`, { chapters });
    expect(patched.status, patched.text).toBe(400);
    expect((await api('GET', `/episodes/${String(id)}`)).body['chapters']).toEqual({ markers });
  });

  // Parsed, they were stored changed with a 200 (a probe's dict: 1e400 as null, 1e-400 as 0).
  it.each([
    ['1e400', 'is too large for a JSON number'],
    ['1e-400', 'is too small for a JSON number (it reads as 0)'],
    ['9223372036854775807', 'is a number past 2^53, which a JSON number does not keep exactly'],
  ])('refuses the number %s, which JSON does not keep, naming where it is', async (number, problem) => {
    const id = (await api('POST', '/episodes', { title: 'Kept', chapters: { markers } })).body['id'];
    const raw = `{"chapters":{"markers":[{"start":1,"title":"A"},{"start":${number},"title":"B"}]}}`;
    const patched = await api('PATCH', `/episodes/${String(id)}`, undefined, {
      raw,
      headers: { 'content-type': 'application/json' },
    });
    expect([patched.status, patched.body['errors']?.[0]?.field], patched.text).toEqual([
      400,
      'chapters.markers.1.start',
    ]);
    expect(patched.body['errors'][0].message).toContain(`${number} ${problem}`);
    // What to do instead, that works: no number field keeps it (a probe's big_integer was told to take it as text).
    if (number.length > 10)
      expect(patched.body['message']).toContain(
        'a whole-number field, a big integer too, keeps one from -9007199254740991 to 9007199254740991',
      );
    expect((await api('GET', `/episodes/${String(id)}`)).body['chapters']).toEqual({ markers });
  });

  it('is stated in the OpenAPI document, with its description', () => {
    const document = JSON.parse(readFileSync(join(dir, 'openapi.json'), 'utf8')) as {
      components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> };
    };
    const chapters = document.components.schemas['EpisodeCreate']!.properties['chapters']!;
    expect(chapters).toMatchObject({
      description: 'chapter markers, in order',
      required: ['markers'],
      properties: { markers: { type: 'array', maxItems: 3, items: MARKER } },
    });
  });

  it("passes the project's own typecheck and generated tests, whose samples have the shape", async () => {
    const check = await tool(dir, 'tsc', ['--noEmit', '-p', 'tsconfig.json']);
    expect(check.exitCode, check.all).toBe(0);
    const run = await tool(dir, 'vitest', ['run']);
    expect(run.exitCode, run.all).toBe(0);
    // Among them, a merge of a key the shape declares, with a value of its shape.
    expect(readFileSync(join(dir, 'test/api.test.ts'), 'utf8')).toContain(
      ".merge({ markers: [{ start: 0, title: 'value' }] })",
    );
  }, 300_000);
});
