/**
 * docs/schema.md's "unique together", as written there: a readOnly unique field that a
 * before_create handler fills from the fields it is made of. Of concurrent creates of one pair,
 * exactly one lands and the others are 409s naming the field, on every engine (a probe's handler
 * that looked for a duplicate first let 3 of 10 through on PostgreSQL). A member cannot write the
 * key to get round it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { raml } from '../support/files.js';
import { apiClient, type Api } from '../support/http.js';
import { projectOf, tool } from '../support/project.js';
import { repoRoot } from '../support/paths.js';
import { startService, type RunningService } from '../support/server.js';

const API = raml(`title: Ratings
baseUri: http://{host}/{version}
version: v1
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

/** The docs' field, as written there. */
const KEY_FIELD = JSON.parse(
  /```json\n\s*("rating_key": [^\n]*)\n\s*```/
    .exec(readFileSync(join(repoRoot, 'docs/schema.md'), 'utf8'))![1]!
    .replace(/^"rating_key": /, ''),
) as object;

const RATING = JSON.stringify({
  type: 'object',
  _event_handlers: { before_create: ['rating_key'] },
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    episode: { type: 'integer', _db_settings: { type: 'integer', required: true } },
    listener: { type: 'string', _db_settings: { type: 'string', required: true } },
    stars: { type: 'integer', _db_settings: { type: 'integer', min_value: 1, max_value: 5 } },
    rating_key: KEY_FIELD,
  },
});

/** The docs' handler, as written there, under its stub's import. */
function handlerSource(): string {
  const docs = readFileSync(join(repoRoot, 'docs/schema.md'), 'utf8');
  const body = /```ts\n\s*\/\/ src\/custom\/handlers\/rating-key\.ts[^\n]*\n([\s\S]*?)```/.exec(docs)![1]!;
  return `import type { RatingKeyEvent } from '../../events.js';\n\n${body.replace(/^ {2}/gm, '')}`;
}

let dir: string;

beforeAll(async () => {
  dir = await projectOf({ 'api.raml': API, 'rating.json': RATING }, 'e2e-unique-together');
  writeFileSync(join(dir, 'src/custom/handlers/rating-key.ts'), handlerSource());
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
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('lets one of many concurrent creates of a pair land, and answers the others 409', async () => {
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        api('POST', '/ratings', { episode: 1, listener: 'lena', stars: 1 + (n % 5) }),
      ),
    );
    expect(replies.map((r) => r.status).sort((a, b) => a - b)).toEqual([201, ...Array<number>(9).fill(409)]);
    expect(replies.find((r) => r.status === 409)!.body.message).toContain('rating_key');
    expect((await api('GET', '/ratings?_count')).body).toEqual({ count: 1 });
    // Another pair is another key.
    expect((await api('POST', '/ratings', { episode: 2, listener: 'lena', stars: 4 })).status).toBe(201);
    expect((await api('POST', '/ratings', { episode: 1, listener: 'max', stars: 4 })).status).toBe(201);
  });

  it('takes no key from the caller', async () => {
    const sent = await api('POST', '/ratings', { episode: 3, listener: 'lena', stars: 2, rating_key: 'x' });
    expect(sent.status, sent.text).toBe(403);
  });
});
