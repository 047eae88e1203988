/**
 * A fuzzer driven by the service's own OpenAPI document (issue 15): random requests to every
 * documented operation, with path keys that exist and keys that do not, documented query
 * parameters with valid and nonsense values, bodies the schema accepts and bodies it refuses.
 * Every answer must be below 500 and be what the document says (support/http.ts checks each one
 * against the document the service serves). FUZZ_HTTP_RUNS requests per engine (1,000 in
 * `npm test`; `npm run fuzz:http` sends more).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, contractOf, type Api } from '../support/http.js';
import { builtProject } from '../support/project.js';
import { SchemaArbitraries, smallJson } from '../support/schema-arbitrary.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/api/v2';
const RUNS = Number(process.env['FUZZ_HTTP_RUNS'] ?? 1000);
type Json = Record<string, unknown>;

interface Operation {
  readonly template: string;
  readonly method: string;
  readonly parameters: readonly Json[];
  readonly body: Json | undefined;
}

interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
  /** A body that is not JSON at all, sent as application/json. */
  readonly raw: string | undefined;
}

/** Keys that exist, per path parameter name (refreshed after each seeding), besides random text. */
const knownKeys: Record<string, string[]> = { id: ['1'], slug: ['first'] };

/** Objects of every model, again: bulk deletes empty the tables now and then. */
async function seed(api: Api): Promise<void> {
  for (const n of [1, 2, 3]) {
    const author = await api('POST', '/authors', {
      name: `Author ${n}`,
      email: `author${n}-${Date.now()}@example.com`,
    });
    const slug = ['first', 'second', 'third'][n - 1];
    await api('POST', '/posts', { slug, title: `Post number ${n}`, author: author.body?.id ?? null, tags: ['a'] });
    await api('POST', `/posts/${slug}/comments`, { body: `comment ${n}` });
    if (author.status === 201) await api('POST', `/authors/${author.body.id}/address`, { city: 'Oslo' });
  }
  const keys = async (path: string, key: string) =>
    ((await api('GET', `${path}?_limit=5&_fields=${key}`)).body?.data ?? []).map((o: Record<string, unknown>) =>
      String(o[key]),
    );
  knownKeys['id'] = [
    ...(await keys('/authors', 'id')),
    ...(await keys('/comments', 'id')),
    ...(await keys('/addresses', 'id')),
  ];
  knownKeys['slug'] = await keys('/posts', 'slug');
}

function operationsOf(document: Json, arbitraries: SchemaArbitraries): Operation[] {
  return Object.entries(document['paths'] as Record<string, Json>).flatMap(([template, item]) => {
    const shared = ((item['parameters'] as Json[] | undefined) ?? []).map((p) => arbitraries.resolve(p));
    return Object.entries(item)
      .filter(([method]) => ['get', 'put', 'post', 'patch', 'delete', 'options'].includes(method))
      .map(([method, operation]) => {
        const op = operation as Json;
        const own = ((op['parameters'] as Json[] | undefined) ?? []).map((p) => arbitraries.resolve(p));
        const body = ((op['requestBody'] as Json | undefined)?.['content'] as Json | undefined)?.[
          'application/json'
        ] as Json | undefined;
        return {
          template,
          method: method.toUpperCase(),
          parameters: [...shared, ...own],
          body: body?.['schema'] as Json | undefined,
        };
      });
  });
}

function requestOf(operation: Operation, arbitraries: SchemaArbitraries): fc.Arbitrary<FuzzRequest> {
  const pathParts = operation.template.split('/').map((segment) => {
    const name = /^\{(.+)\}$/.exec(segment)?.[1];
    if (!name) return fc.constant(segment);
    // Read when the request is drawn: the keys of the latest seeding.
    const known = fc.nat(99).map((i) => knownKeys[name]?.[i % (knownKeys[name]?.length || 1)] ?? '1');
    // "." and ".." are no keys a client can send: every URL parser resolves them as dot segments
    // (the test below asks for those paths on purpose).
    const random = fc.string({ minLength: 1, maxLength: 8 }).filter((key) => key !== '.' && key !== '..');
    return fc.oneof({ weight: 4, arbitrary: known }, { weight: 1, arbitrary: random }).map(encodeURIComponent);
  });
  // Up to two documented parameters, mostly with values their schema accepts.
  const documented = operation.parameters.filter((p) => p['in'] === 'query');
  const parameter = (p: Json) =>
    fc
      .oneof(
        { weight: 3, arbitrary: arbitraries.valid((p['schema'] as Json | undefined) ?? {}) },
        { weight: 1, arbitrary: smallJson() },
      )
      .map((value) => [String(p['name']), queryValue(value)] as const);
  const none: fc.Arbitrary<(readonly [string, string])[]> = fc.constant([]);
  const query = fc
    .shuffledSubarray(documented, { maxLength: Math.min(2, documented.length) })
    .chain((chosen) => (chosen.length ? fc.tuple(...chosen.map(parameter)) : none));
  const stray = rarely(
    fc.tuple(fc.constantFrom('zzz', '_limit', 'q', '__proto__', 'slug__gt'), fc.string({ maxLength: 6 })),
    10,
  );
  const body = operation.body
    ? fc.oneof(
        { weight: 3, arbitrary: arbitraries.valid(operation.body) },
        { weight: 1, arbitrary: arbitraries.invalid(operation.body) },
      )
    : fc.constant(undefined);
  const raw = operation.body ? rarely(fc.constantFrom('{', 'not json', '{"a":1}{', '[1,2'), 20) : fc.constant(null);
  return fc
    .record({ parts: fc.tuple(...pathParts), query, stray, body, raw })
    .map(({ parts, query, stray, body, raw }) => {
      const pairs = [...query, ...(stray ? [stray] : [])];
      const search = pairs.length
        ? `?${new URLSearchParams(pairs.map(([k, v]): [string, string] => [k, v])).toString()}`
        : '';
      return { method: operation.method, path: `${parts.join('/')}${search}`, body, raw: raw ?? undefined };
    });
}

/** A value once in `every` draws, else null. */
function rarely<T>(value: fc.Arbitrary<T>, every: number): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: every - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: value });
}

function queryValue(value: unknown): string {
  if (Array.isArray(value)) return value.map(String).join(',');
  return typeof value === 'string' ? value : JSON.stringify(value);
}

describe.each(['sqlite', 'postgres'] as const)('the OpenAPI-driven fuzzer on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;
  let document: Json;

  beforeAll(async () => {
    const dir = await builtProject('blog', 'e2e-openapi-fuzz');
    database = await testDatabase(engine, dir, 'openapi_fuzz');
    service = await startService(dir, database.env, BASE);
    api = apiClient(service.origin, BASE);
    document = (await contractOf(service.origin, BASE)).document;
    await seed(api);
  });

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it(`answers ${RUNS} random requests to every documented operation with documented answers, never a 5xx`, async () => {
    const arbitraries = new SchemaArbitraries(document);
    const operations = operationsOf(document, arbitraries);
    expect(operations.length).toBeGreaterThan(20);
    const statuses = new Map<number, number>();
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(...operations.map((o) => requestOf(o, arbitraries))), async (request) => {
        // Bulk deletes empty the tables now and then: the seeded keys come back every 100 requests.
        if (++sent % 100 === 0) await seed(api);
        const reply =
          request.raw !== undefined
            ? await api(request.method, request.path, undefined, {
                raw: request.raw,
                headers: { 'content-type': 'application/json' },
              })
            : await api(request.method, request.path, request.body);
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        expect(
          reply.status,
          `${request.method} ${request.path} ${JSON.stringify(request.body)} → ${reply.text}`,
        ).toBeLessThan(500);
      }),
      {
        numRuns: RUNS,
        endOnFailure: true,
        seed: process.env['FUZZ_SEED'] ? Number(process.env['FUZZ_SEED']) : undefined,
      },
    );
    // The fuzzer must reach the handlers, not only the validation: successes and refusals alike.
    const count = (from: number, to: number) =>
      [...statuses].filter(([s]) => s >= from && s < to).reduce((n, [, c]) => n + c, 0);
    expect(count(200, 300), JSON.stringify([...statuses])).toBeGreaterThan(RUNS / 5);
    expect(count(400, 500), JSON.stringify([...statuses])).toBeGreaterThan(RUNS / 10);
  });

  it('answers paths a URL parser rewrites or that end in a slash with documented answers', async () => {
    const key = knownKeys['slug']?.[0] ?? 'first';
    const paths = [
      '/posts/',
      '/posts/.',
      '/posts/%2e',
      '/posts/..',
      '/posts//',
      `/posts/${key}/`,
      `/posts/${key}/.`,
      '/posts/./',
      '//posts',
    ];
    for (const path of paths) {
      for (const method of ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const) {
        const reply = await api(method, path, method === 'GET' || method === 'DELETE' ? undefined : {});
        expect(reply.status, `${method} ${path} → ${reply.text}`).toBeLessThan(500);
      }
    }
    // A trailing slash names no resource (as in Ramses), and the answer says so rather than "Post  not found",
    // with the resource the URL names without it.
    const slash = await api('GET', '/posts/');
    expect([slash.status, slash.body?.message]).toEqual([
      404,
      `${BASE}/posts/ is not a resource of this service; without the trailing slash it is: ${BASE}/posts`,
    ]);
    const item = await api('GET', `/posts/${key}/`);
    expect([item.status, item.body?.message]).toEqual([
      404,
      `${BASE}/posts/${key}/ is not a resource of this service; without the trailing slash it is: ${BASE}/posts/${key}`,
    ]);
    const nothing = await api('GET', '/nowhere/');
    expect([nothing.status, nothing.body?.message]).toEqual([
      404,
      `${BASE}/nowhere/ is not a resource of this service`,
    ]);
  });
});
