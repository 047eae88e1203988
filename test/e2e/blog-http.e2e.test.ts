/**
 * The blog fixture over HTTP on SQLite and PostgreSQL: nested collections, a singular
 * sub-resource, a self-referencing relationship, two relationships to one model, every
 * ref_ondelete, embedding two levels deep, a string primary key, decimals, CORS.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api } from '../support/http.js';
import { builtProject, inProcessApp } from '../support/project.js';
import { isOutboxWork, statementsDuring } from '../support/query-log.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/api/v2';
const APP_ORIGIN = 'https://app.example.com';

describe.each(ENGINES)('blog over HTTP on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;
  let author: number;
  let dir: string;

  beforeAll(async () => {
    dir = await builtProject('blog', 'e2e');
    database = await testDatabase(engine, dir, 'blog');
    service = await startService(
      dir,
      { ...database.env, SVC_CORS_ENABLE: 'true', SVC_CORS_ALLOW_ORIGINS: APP_ORIGIN },
      BASE,
    );
    api = apiClient(service.origin, BASE);
    author = (await api('POST', '/authors', { name: 'Ann', email: 'ann@example.com' })).body.id;
  });

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  const post = (slug: string, extra: Record<string, unknown> = {}) =>
    api('POST', '/posts', { slug, title: `Title ${slug}`, ...extra });

  it('serves below a base path with an extra segment', async () => {
    expect((await api('GET', '/health')).status).toBe(200);
    expect((await fetch(`${service.origin}/v2/authors`)).status).toBe(404);
  });

  it('serves its OpenAPI document at {base}/openapi.json: with auth = false, the project’s openapi.json without its authentication', async () => {
    const reply = await api('GET', '/openapi.json');
    expect(reply.status).toBe(200);
    const generated = JSON.parse(readFileSync(join(dir, 'openapi.json'), 'utf8'));
    expect(Object.keys(generated.paths)).toContain('/auth/token');
    expect(Object.keys(reply.body.paths)).toEqual(
      Object.keys(generated.paths).filter((p) => !p.startsWith('/auth/') && p !== '/users/self'),
    );
    expect(reply.body.components.securitySchemes).toBeUndefined();
    expect(reply.body.security).toEqual([]);
    const schemas = reply.body.components.schemas as Record<string, unknown>;
    // The union of all events loses the register events (nobody registers without auth); the rest is as generated.
    for (const [name, schema] of Object.entries(schemas))
      if (name !== 'Event') expect(schema, name).toEqual(generated.components.schemas[name]);
    expect(schemas['Event']).toEqual({
      ...generated.components.schemas['Event'],
      oneOf: generated.components.schemas['Event'].oneOf.filter(
        (r: { $ref: string }) => r.$ref !== '#/components/schemas/UserEvent',
      ),
    });
    // What only the auth routes used goes with them: no client of the served document gets dead types (issue 32).
    expect(Object.keys(generated.components.schemas).filter((name) => !(name in schemas))).toEqual([
      'Login',
      'Token',
      'User',
      'UserCreate',
      'UserEvent',
      'UserEventObject',
    ]);
    const operations = Object.values(reply.body.paths).flatMap((item) => Object.values(item as object)) as {
      security?: unknown;
      responses?: object;
    }[];
    expect(operations.filter((o) => o.security || ['401', '403'].some((s) => s in (o.responses ?? {})))).toEqual([]);
    // Rate limits (rate_limit.writes) apply with auth off too: writes keep their 429, reads have none.
    expect(reply.body.paths['/posts'].post.responses).toHaveProperty('429');
    expect(reply.body.paths['/posts'].get.responses).not.toHaveProperty('429');
    expect(reply.body.paths['/posts'].get.responses).toEqual(
      expect.objectContaining({ '200': generated.paths['/posts'].get.responses['200'] }),
    );
    expect(reply.body.servers).toEqual([{ url: BASE, description: expect.stringContaining('full URL') }]);
  });

  describe('a nested collection', () => {
    it('POST creates an object linked to the parent; GET lists only the parent’s', async () => {
      const created = await api('POST', `/authors/${author}/posts`, { slug: 'nested-1', title: 'Nested one' });
      expect(created.status, created.text).toBe(201);
      expect(created.body).toMatchObject({
        author,
        author_id: author,
        _self: `${service.origin}${BASE}/posts/nested-1`,
      });
      expect(created.headers.get('location')).toBe(created.body._self);
      await post('not-annes');
      const listed = await api('GET', `/authors/${author}/posts`);
      expect(listed.body.data.map((p: { slug: string }) => p.slug)).toEqual(['nested-1']);
      expect(listed.body.total).toBe(1);
    });

    it('takes the query language, scoped to the parent', async () => {
      await api('POST', `/authors/${author}/posts`, { slug: 'nested-2', title: 'Nested two', score: 80 });
      expect(
        (await api('GET', `/authors/${author}/posts?score__gt=50`)).body.data.map((p: { slug: string }) => p.slug),
      ).toEqual(['nested-2']);
      expect((await api('GET', `/authors/${author}/posts?_count`)).body).toEqual({ count: 2 });
      expect((await api('GET', `/authors/${author}/posts?_count=true`)).body).toEqual({ count: 2 });
      // What a client that writes `_count=false` means: the page, not its count.
      for (const no of ['false', '0'])
        expect((await api('GET', `/authors/${author}/posts?_count=${no}`)).body.data).toHaveLength(2);
      // Neither a yes nor a no: said, not guessed; nor an empty sort key.
      const maybe = await api('GET', `/authors/${author}/posts?_count=maybe`);
      expect([maybe.status, maybe.body.errors]).toEqual([
        400,
        [{ field: '_count', message: 'must be given bare, or be true, false, 1 or 0' }],
      ]);
      for (const sort of [',', 'slug,', '-'])
        expect((await api('GET', `/authors/${author}/posts?_sort=${sort}`)).status, sort).toBe(400);
    });

    it('refuses a body that links elsewhere, and an unknown parent', async () => {
      const other = (await api('POST', '/authors', { name: 'Bo', email: 'bo@example.com' })).body.id;
      const reply = await api('POST', `/authors/${author}/posts`, {
        slug: 'nested-x',
        title: 'Elsewhere',
        author: other,
      });
      expect(reply.status).toBe(400);
      expect(reply.body.errors).toEqual([{ field: 'author', message: 'is set by the URL (Author)' }]);
      expect((await api('GET', '/authors/999999/posts')).status).toBe(404);
      expect((await api('POST', '/authors/999999/posts', { slug: 'nested-y', title: 'Nobody' })).status).toBe(404);
    });

    it('a nested item is found only under its parent', async () => {
      await post('with-comments');
      const comment = await api('POST', '/posts/with-comments/comments', { text: 'first!' });
      expect(comment.status).toBe(201);
      expect((await api('GET', `/posts/with-comments/comments/${comment.body.id}`)).body.text).toBe('first!');
      expect((await api('GET', `/posts/not-annes/comments/${comment.body.id}`)).status).toBe(404);
      expect(comment.body._self).toBe(`${service.origin}${BASE}/comments/${comment.body.id}`);
    });
  });

  describe('a singular sub-resource', () => {
    it('POST, GET, PUT, PATCH, DELETE on the one related object', async () => {
      const created = await api('POST', `/authors/${author}/address`, { city: 'Oslo', location: [59.9, 10.7] });
      expect(created.status).toBe(201);
      // Location names the new object's URL (its _self), as for every create.
      expect(created.headers.get('location')).toBe(created.body._self);
      expect(created.body._self).toMatch(/^http/);
      expect((await api('GET', `/authors/${author}/address`)).body).toMatchObject({
        city: 'Oslo',
        location: [59.9, 10.7],
        author,
      });
      const replaced = await api('PUT', `/authors/${author}/address`, { city: 'Bergen' });
      expect(replaced.status, replaced.text).toBe(200);
      // PUT returned the list to no value, which reads as an empty list (a list is never null).
      expect(replaced.body).toMatchObject({ city: 'Bergen', street: null, location: [], author });
      expect((await api('PATCH', `/authors/${author}/address`, { street: 'Bryggen 1' })).body).toMatchObject({
        city: 'Bergen',
        street: 'Bryggen 1',
      });
      expect((await api('DELETE', `/authors/${author}/address`)).status).toBe(200);
      expect((await api('GET', `/authors/${author}/address`)).status).toBe(404);
    });
  });

  describe('relationships', () => {
    it('keeps two relationships to the same model apart', async () => {
      const reviewer = (await api('POST', '/authors', { name: 'Rev', email: 'rev@example.com' })).body.id;
      await post('reviewed', { author, reviewer });
      const read = await api('GET', `/authors/${reviewer}?_fields=posts,reviews`);
      expect(read.body.reviews).toEqual(['reviewed']);
      expect(read.body.posts).toEqual([]);
    });

    it('links a self-referencing relationship and filters through it', async () => {
      await post('threads');
      const root = (await api('POST', '/posts/threads/comments', { text: 'root' })).body.id;
      const reply = await api('POST', '/posts/threads/comments', { text: 'reply', parent: root });
      expect(reply.body.parent).toBe(root);
      expect((await api('GET', `/comments/${root}`)).body.replies).toEqual([reply.body.id]);
      expect(
        (await api('GET', `/comments?replies=${reply.body.id}`)).body.data.map((c: { id: number }) => c.id),
      ).toEqual([root]);
      expect((await api('GET', `/comments?parent=${root}`)).body.data.map((c: { id: number }) => c.id)).toEqual([
        reply.body.id,
      ]);
      expect(
        (await api('GET', '/comments?replies__isnull=true&post=threads')).body.data.map((c: { id: number }) => c.id),
      ).toEqual([reply.body.id]);
    });

    it('embeds nested relationships two levels deep, in one query per relationship per level', async () => {
      const writer = (await api('POST', '/authors', { name: 'Deep', email: 'deep@example.com' })).body.id;
      await api('POST', `/authors/${writer}/posts`, { slug: 'deep-1', title: 'Deep one' });
      await api('POST', '/posts/deep-1/comments', { text: 'deep comment' });
      await api('POST', `/authors/${writer}/address`, { city: 'Rome' });
      const read = await api('GET', `/authors/${writer}`);
      expect(read.body.posts).toHaveLength(1);
      expect(read.body.posts[0]).toMatchObject({
        slug: 'deep-1',
        _type: 'Post',
        _self: `${service.origin}${BASE}/posts/deep-1`,
      });
      expect(read.body.posts[0].comments[0]).toMatchObject({ text: 'deep comment', _type: 'Comment' });
      // Level 3 (a comment's own relationships) is keys, not objects.
      expect(read.body.posts[0].comments[0].post).toBe('deep-1');
      expect(read.body.address).toMatchObject({ city: 'Rome', _type: 'Address' });
    });
  });

  it('reads relationships with one query per relationship per level, however many rows (no N+1)', async () => {
    const dir = await builtProject('blog', 'e2e');
    const traced = await startService(dir, { ...database.env, SVC_LOG_LEVEL: 'debug' }, BASE);
    try {
      const tracedApi = apiClient(traced.origin, BASE);
      const queriesFor = async (path: string) => {
        const statements = await statementsDuring(traced, async () => {
          expect((await tracedApi('GET', path)).status).toBe(200);
        });
        return statements.filter((s) => !isOutboxWork(s)).length;
      };
      for (let i = 0; i < 6; i++) {
        const id = (await tracedApi('POST', '/authors', { name: `N${i}`, email: `n${i}@example.com` })).body.id;
        await tracedApi('POST', `/authors/${id}/posts`, { slug: `n-plus-${i}`, title: `Post ${i}` });
        await tracedApi('POST', `/posts/n-plus-${i}/comments`, { text: `comment ${i}` });
      }
      const one = await queriesFor('/authors?name__startswith=N&_limit=1');
      const six = await queriesFor('/authors?name__startswith=N&_limit=6');
      expect(one).toBeGreaterThan(2);
      expect(six).toBe(one);
    } finally {
      await traced.stop();
    }
  });

  describe('ref_ondelete', () => {
    it('CASCADE: deleting an author deletes their posts', async () => {
      const gone = (await api('POST', '/authors', { name: 'Gone', email: 'gone@example.com' })).body.id;
      await api('POST', `/authors/${gone}/posts`, { slug: 'cascaded', title: 'Cascaded' });
      expect((await api('DELETE', `/authors/${gone}`)).status).toBe(200);
      expect((await api('GET', '/posts/cascaded')).status).toBe(404);
    });

    it('RESTRICT deeper in a cascade: an author whose post has comments is not deleted, and the 409 names them', async () => {
      const kept = (await api('POST', '/authors', { name: 'Kept', email: 'kept@example.com' })).body.id;
      await api('POST', `/authors/${kept}/posts`, { slug: 'commented', title: 'Commented' });
      await api('POST', '/posts/commented/comments', { text: 'holds it' });
      const reply = await api('DELETE', `/authors/${kept}`);
      // It once said only "other objects still refer to this one", with no errors.
      expect([reply.status, reply.body.message, reply.body.errors], reply.text).toEqual([
        409,
        'related objects still refer to Post commented (comments), which this delete would take with it, so it cannot be deleted',
        [{ field: 'posts', message: 'Post commented has comments that prevent deleting it' }],
      ]);
      expect((await api('GET', `/authors/${kept}`)).status).toBe(200);
      expect((await api('GET', '/posts/commented')).status).toBe(200);
    });

    it('RESTRICT: a post with comments cannot be deleted (409), and nothing is deleted', async () => {
      await post('restricted');
      await api('POST', '/posts/restricted/comments', { text: 'keep me' });
      const reply = await api('DELETE', '/posts/restricted');
      expect(reply.status).toBe(409);
      expect(reply.body.errors).toEqual([
        { field: 'comments', message: 'has related objects that prevent deleting this one' },
      ]);
      expect((await api('GET', '/posts/restricted')).status).toBe(200);
    });

    it('NULLIFY (the default): deleting a reviewer empties the link', async () => {
      const reviewer = (await api('POST', '/authors', { name: 'Leaves', email: 'leaves@example.com' })).body.id;
      await post('orphan-review', { reviewer });
      await api('DELETE', `/authors/${reviewer}`);
      expect((await api('GET', '/posts/orphan-review')).body).toMatchObject({ reviewer: null, reviewer_id: null });
    });

    it('a bulk delete that hits a RESTRICT is all or nothing', async () => {
      await post('bulk-free');
      await post('bulk-held');
      await api('POST', '/posts/bulk-held/comments', { text: 'hold' });
      expect((await api('DELETE', '/posts?slug__startswith=bulk-')).status).toBe(409);
      expect((await api('GET', '/posts/bulk-free')).status).toBe(200);
    });
  });

  it('a one-to-one link is unique: a second object linking to the same one is a 409', async () => {
    const lonely = (await api('POST', '/authors', { name: 'One', email: 'one@example.com' })).body.id;
    expect((await api('POST', '/addresses', { city: 'A', author: lonely })).status).toBe(201);
    const second = await api('POST', '/addresses', { city: 'B', author: lonely });
    expect(second.status).toBe(409);
    expect(second.body.errors).toEqual([{ field: 'author', message: 'is already taken' }]);
    // Moving the link from the other side frees it first.
    const other = (await api('POST', '/addresses', { city: 'C' })).body.id;
    expect((await api('PATCH', `/authors/${lonely}`, { address: other })).body.address).toMatchObject({ id: other });
  });

  it('a link list far longer than one statement can bind is checked, not a 500', async () => {
    await post('many-links');
    const reply = await api('PATCH', '/posts/many-links', {
      comments: Array.from({ length: 40_000 }, (_, i) => 1_000_000 + i),
    });
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0].field).toBe('comments');
  });

  it('text holding U+0000 (which PostgreSQL cannot store) is a 400 naming where, on every engine', async () => {
    await post('nul-text');
    const cases: [string, string, unknown, string][] = [
      ['PATCH', '/posts/nul-text', { title: 'a\u0000b' }, 'title'],
      ['POST', '/posts/nul-text/tags', { 'a\u0000': true }, 'a\u0000'],
      ['GET', '/posts?title__contains=%00', undefined, 'title__contains'],
      ['GET', '/posts/nul%00text', undefined, 'slug'],
      ['GET', '/posts?%00=1', undefined, '\u0000'],
    ];
    for (const [method, path, body, field] of cases) {
      const reply = await api(method, path, body);
      expect(reply.status, `${method} ${path}: ${reply.text}`).toBe(400);
      expect(reply.body.errors).toEqual([{ field, message: 'contains the NUL character' }]);
    }
    // A key that is the character itself is named in the message all the same, escaped.
    expect((await api('GET', '/posts?%00=1')).body.message).toBe(
      'query.\\u0000 contains the NUL character (\\u0000), which no text may hold',
    );
  });

  it('text holding half of a surrogate pair (no character; UTF-8 would store U+FFFD) is a 400 naming where', async () => {
    await post('lone-surrogate');
    // JSON.stringify writes a lone half as its escape, "\ud800", as a client's JSON would.
    for (const [method, path, body, field] of [
      ['PATCH', '/posts/lone-surrogate', { title: 'a\ud800b' }, 'title'],
      ['PATCH', '/posts/lone-surrogate', { title: '\udc00' }, 'title'],
      ['POST', '/posts/lone-surrogate/tags', { 'x\udbff': true }, 'x\udbff'],
    ] as const) {
      const reply = await api(method, path, body);
      expect(reply.status, `${method} ${path}: ${reply.text}`).toBe(400);
      expect(reply.body.errors).toEqual([{ field, message: 'contains half of a surrogate pair' }]);
    }
    // A pair is one character, stored as sent.
    const paired = await api('PATCH', '/posts/lone-surrogate', { title: 'smile \ud83d\ude00' });
    expect([paired.status, paired.body.title]).toEqual([200, 'smile \u{1F600}']);
  });

  it('a dict nested deeper than 64 levels is a 400, however deep (10,000 levels was a 500: a stack overflow)', async () => {
    const author = (await api('POST', '/authors', { name: 'Nested', email: 'nested@example.com' })).body.id;
    const nested = (levels: number) => `{"links":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}`;
    for (const levels of [65, 10_000]) {
      const reply = await api('PATCH', `/authors/${author}`, undefined, {
        raw: nested(levels),
        headers: { 'content-type': 'application/json' },
      });
      expect(reply.status, `${levels}: ${reply.text.slice(0, 200)}`).toBe(400);
      expect(reply.body.errors).toEqual([{ field: 'links', message: 'is nested deeper than 64 levels' }]);
    }
    const fine = await api('PATCH', `/authors/${author}`, undefined, {
      raw: nested(60),
      headers: { 'content-type': 'application/json' },
    });
    expect(fine.status, fine.text.slice(0, 200)).toBe(200);
  });

  describe('values', () => {
    it('a string primary key is the URL key; it cannot change', async () => {
      await post('string-key');
      expect((await api('PATCH', '/posts/string-key', { slug: 'renamed' })).status).toBe(400);
      expect((await api('PUT', '/posts/string-key', { slug: 'string-key', title: 'Same key' })).status).toBe(200);
    });

    it('validates JSON Schema keywords of the property (pattern, minLength)', async () => {
      const reply = await post('Not A Slug', { title: 'ab' });
      expect(reply.status).toBe(400);
      expect(reply.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['slug', 'title']);
    });

    it('rounds decimals to their scale and bounds their precision', async () => {
      expect((await post('decimal', { rating: 3.14159 })).body.rating).toBe(3.14);
      expect((await post('decimal-big', { rating: 1000 })).status).toBe(400);
    });

    it('choice and bounds', async () => {
      expect((await post('choice', { status: 'archived' })).status).toBe(400);
      expect((await post('bounds', { score: 101 })).status).toBe(400);
      expect((await post('fine', { status: 'published', score: 100 })).body).toMatchObject({
        status: 'published',
        score: 100,
      });
    });

    it('a list attribute with numbers', async () => {
      await post('tagged');
      expect((await api('POST', '/posts/tagged/tags', { news: true, tech: true })).body).toEqual(['news', 'tech']);
      expect((await api('GET', '/posts?tags=tech')).body.data.map((p: { slug: string }) => p.slug)).toEqual(['tagged']);
    });
  });

  describe('CORS', () => {
    it('answers preflight requests on every route, listed or not, for allowed origins', async () => {
      const reply = await api('OPTIONS', '/posts/any', undefined, {
        headers: { origin: APP_ORIGIN, 'access-control-request-method': 'PATCH' },
      });
      expect(reply.status).toBe(204);
      expect(reply.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      expect(reply.headers.get('access-control-allow-methods')).toContain('PATCH');
    });

    it('answers a plain OPTIONS (no Origin: not a preflight) as with CORS off: the route’s Allow, no CORS headers', async () => {
      const reply = await api('OPTIONS', '/posts');
      expect(reply.status).toBe(405);
      expect(reply.headers.get('allow')).toBe('DELETE, GET, HEAD, POST');
      expect(reply.headers.get('access-control-allow-origin')).toBeNull();
      expect(reply.headers.get('access-control-allow-methods')).toBeNull();
    });

    it('adds the CORS headers to responses for allowed origins only', async () => {
      const allowed = await api('GET', '/posts', undefined, { headers: { origin: APP_ORIGIN } });
      expect(allowed.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      expect(allowed.headers.get('access-control-expose-headers')).toBe('ETag, Location, Retry-After');
      expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();
      expect(allowed.headers.get('vary')).toBe('Origin');
      const other = await api('GET', '/posts', undefined, { headers: { origin: 'https://evil.example' } });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      const preflight = await api('OPTIONS', '/posts', undefined, {
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
      // Errors too: a script must be able to read why its request failed.
      const missing = await api('GET', '/posts/no-such-post', undefined, { headers: { origin: APP_ORIGIN } });
      expect(missing.status).toBe(404);
      expect(missing.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      // Without an Origin no CORS header, but a cache still learns that the answer depends on it.
      const plain = await api('GET', '/posts');
      expect(plain.headers.get('access-control-allow-origin')).toBeNull();
      expect(plain.headers.get('vary')).toBe('Origin');
    });

    it('answers a preflight from an allowed origin before the route: 204, the origin, the methods, the headers asked for', async () => {
      // /posts does not list OPTIONS: without the preflight headers the same request is a 405.
      const reply = await api('OPTIONS', '/posts', undefined, {
        headers: {
          origin: APP_ORIGIN,
          'access-control-request-method': 'PATCH',
          'access-control-request-headers': 'content-type, if-match',
        },
      });
      expect(reply.status).toBe(204);
      expect(reply.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      expect(reply.headers.get('access-control-allow-methods')).toContain('PATCH');
      expect(reply.headers.get('access-control-allow-headers')).toBe('content-type, if-match');
      expect(reply.headers.get('access-control-max-age')).toBe('600');
      // Both fields the answer depends on, in one Vary.
      expect(reply.headers.get('vary')).toBe('Origin, Access-Control-Request-Headers');
    });

    it('answers a preflight from a refused origin 204 without allowing anything, and never runs the route', async () => {
      const reply = await api('OPTIONS', '/posts', undefined, {
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'DELETE' },
      });
      expect(reply.status).toBe(204);
      expect(reply.headers.get('access-control-allow-origin')).toBeNull();
      expect(reply.headers.get('allow')).toBeNull();
    });

    it('leaves an OPTIONS with an Origin but no Access-Control-Request-Method (a browser’s actual OPTIONS request) to its route', async () => {
      const reply = await api('OPTIONS', '/posts', undefined, { headers: { origin: APP_ORIGIN } });
      expect(reply.status).toBe(405);
      expect(reply.headers.get('allow')).toBe('DELETE, GET, HEAD, POST');
      expect(reply.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    });
  });
});

describe('CORS settings (blog, in process)', () => {
  type Reply = { statusCode: number; headers: Record<string, string | undefined> };
  type App = {
    get(path: string, handler: (request: unknown, reply: HeaderReply) => unknown): void;
    inject(options: object): Promise<Reply>;
    close(): Promise<void>;
  };
  type HeaderReply = { getHeader(name: string): unknown; header(name: string, value: string): void };
  let dir: string;
  const opened: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    dir = await builtProject('blog', 'e2e');
  });

  afterAll(async () => {
    for (const closable of opened.reverse()) await closable.close();
  });

  /** The service with `settings` as SVC_* variables, on a database in memory. */
  async function service(settings: Record<string, string>): Promise<App> {
    const env = {
      SVC_CONFIG: join(dir, 'none.ini'),
      SVC_DATABASE_URL: 'sqlite::memory:',
      SVC_CORS_ENABLE: 'true',
      ...settings,
    };
    const { app, db } = await inProcessApp<App>(dir, env);
    opened.push(db, app);
    return app;
  }

  it('says Access-Control-Allow-Credentials to the allowed origins when cors.allow_credentials is on, on answers and preflights', async () => {
    const app = await service({ SVC_CORS_ALLOW_ORIGINS: APP_ORIGIN, SVC_CORS_ALLOW_CREDENTIALS: 'true' });
    const answer = await app.inject({ method: 'GET', url: `${BASE}/posts`, headers: { origin: APP_ORIGIN } });
    expect(answer.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(answer.headers['access-control-allow-credentials']).toBe('true');
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: `${BASE}/posts`,
      headers: { origin: APP_ORIGIN, 'access-control-request-method': 'POST' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-credentials']).toBe('true');
    const anonymous = await app.inject({ method: 'GET', url: `${BASE}/posts` });
    expect(anonymous.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('answers any origin with * when cors.allow_origins is * (never with credentials: config.ts refuses the pair)', async () => {
    const app = await service({ SVC_CORS_ALLOW_ORIGINS: '*' });
    const answer = await app.inject({
      method: 'GET',
      url: `${BASE}/posts`,
      headers: { origin: 'https://anywhere.example' },
    });
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('adds Origin to the Vary a route adds to, instead of putting it in its place', async () => {
    const app = await service({ SVC_CORS_ALLOW_ORIGINS: APP_ORIGIN });
    // A route whose answer also depends on the language adds that to the Vary it finds.
    app.get(`${BASE}/greeting`, (_request, reply) => {
      reply.header('vary', [reply.getHeader('vary'), 'Accept-Language'].filter(Boolean).join(', '));
      return { hello: 'world' };
    });
    const answer = await app.inject({ method: 'GET', url: `${BASE}/greeting`, headers: { origin: APP_ORIGIN } });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['vary']).toBe('Origin, Accept-Language');
    expect(answer.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
  });

  it('leaves OPTIONS without preflight headers as it is with CORS off: the route’s Allow, or its 405', async () => {
    const app = await service({ SVC_CORS_ALLOW_ORIGINS: APP_ORIGIN });
    const plain = await app.inject({ method: 'OPTIONS', url: `${BASE}/posts` });
    expect(plain.statusCode).toBe(405);
    expect(plain.headers['allow']).toBe('DELETE, GET, HEAD, POST');
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
    // An unknown path stays unknown, preflight headers or not.
    expect((await app.inject({ method: 'OPTIONS', url: `${BASE}/nothing-here` })).statusCode).toBe(404);
  });

  it("answers a browser's preflight with CORS off by the route's 405, saying where origins are allowed", async () => {
    const app = await service({ SVC_CORS_ENABLE: 'false' });
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: `${BASE}/posts`,
      headers: { origin: APP_ORIGIN, 'access-control-request-method': 'POST' },
    });
    expect(preflight.statusCode).toBe(405);
    expect(JSON.parse((preflight as unknown as { payload: string }).payload).message).toBe(
      'OPTIONS is not allowed on /posts: a CORS preflight, answered only for the origins in cors.allow_origins, with cors.enable = true (service.ini)',
    );
  });
});
