/**
 * ramses-example, generated, built and started as a process (`node dist/server.js`, what
 * `npm start` runs), driven over HTTP on SQLite and on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { breakStoryTable, ENGINES, plantStrayColumn, testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api } from '../support/http.js';
import { builtProject } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const story = (name: string, extra: Record<string, unknown> = {}) => ({ name, description: `about ${name}`, ...extra });
const user = (username: string, extra: Record<string, unknown> = {}) => ({
  username,
  email: `${username}@example.com`,
  password: 'secret-pw',
  ...extra,
});

describe.each(ENGINES)('ramses-example over HTTP on %s', (engine) => {
  let dir: string;
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;

  beforeAll(async () => {
    dir = await builtProject('ramses-example', 'e2e');
    database = await testDatabase(engine, dir, 'example');
    service = await startService(dir, { ...database.env, SVC_BODY_LIMIT: '20000', SVC_MAX_LIMIT: '50' }, '/v1');
    api = apiClient(service.origin, '/v1');
  });

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  describe('the service', () => {
    it('says in one line which migrations its first start applied', () => {
      const lines = service
        .output()
        .split('\n')
        .filter((line) => line.includes('migration(s)'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('applied 1 migration(s): 0001_initial');
    });

    it('answers /health', async () => {
      const reply = await api('GET', '/health');
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ status: 'ok' });
    });

    it('answers an unknown path with a 404 in the error shape', async () => {
      const reply = await api('GET', '/nowhere');
      expect(reply.status).toBe(404);
      expect(reply.body).toMatchObject({
        status_code: 404,
        title: 'Not Found',
        explanation: expect.any(String),
        request_url: `${service.origin}/v1/nowhere`,
      });
      expect(reply.body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    });

    it('answers an unlisted method with 405 and Allow', async () => {
      const reply = await api('PUT', '/stories', {});
      expect(reply.status).toBe(405);
      expect(reply.headers.get('allow')).toBe('DELETE, GET, HEAD, OPTIONS, PATCH, POST');
      expect(reply.body).toMatchObject({ status_code: 405 });
    });

    it('answers OPTIONS with Allow where the RAML lists it', async () => {
      const reply = await api('OPTIONS', '/stories');
      expect(reply.status).toBe(200);
      expect(reply.headers.get('allow')).toBe('DELETE, GET, HEAD, OPTIONS, PATCH, POST');
      expect((await api('OPTIONS', '/users/nobody')).status).toBe(405);
    });

    it('answers HEAD like GET, without a body', async () => {
      const reply = await api('HEAD', '/stories');
      expect(reply.status).toBe(200);
      expect(reply.text).toBe('');
    });

    it('logs JSON lines', () => {
      const lines = service.output().split('\n').filter(Boolean);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines.slice(0, 5)) expect(JSON.parse(line)).toHaveProperty('level');
    });
  });

  describe('creating and reading', () => {
    it('creates a user: 201, Location, _type/_pk/_self, defaults', async () => {
      const reply = await api('POST', '/users', user('alice'));
      expect(reply.status).toBe(201);
      expect(reply.headers.get('location')).toBe(`${service.origin}/v1/users/alice`);
      expect(reply.body).toMatchObject({
        username: 'alice',
        groups: ['user'],
        status: 'active',
        first_name: '',
        _type: 'User',
        _pk: 'alice',
        _self: `${service.origin}/v1/users/alice`,
      });
      expect(reply.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    });

    it('stores and returns every field type in its JSON form', async () => {
      const values = {
        start_date: '2026-03-04T05:06:07+02:00',
        valid_date: '2026-02-28',
        valid_time: '13:14:15',
        signs_number: 9007199254740991,
        reads: 2147483647,
        rating: -32768,
        available_for: 3600,
        attachment: Buffer.from('binary \u0000 data').toString('base64'),
        price: 19.99,
        progress: 0.25,
        completed: true,
        arbitrary_object: { nested: [1, 'two', { three: null }] },
        unicode_name: 'Zoë 🚀',
        unicode_description: 'ünïcödé',
      };
      const created = await api('POST', '/stories', story('types', values));
      expect(created.status, created.text).toBe(201);
      const read = await api('GET', `/stories/${created.body.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({
        ...values,
        start_date: '2026-03-04T03:06:07Z',
        _type: 'Story',
        _pk: String(created.body.id),
      });
    });

    it('rejects values outside a type’s range', async () => {
      const reply = await api(
        'POST',
        '/stories',
        story('range', { rating: 40000, reads: 2 ** 31, valid_date: '2026-02-30' }),
      );
      expect(reply.status).toBe(400);
      expect(reply.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
        'rating',
        'reads',
        'valid_date',
      ]);
    });

    it('refuses a file that is not base64, rather than storing something else', async () => {
      for (const attachment of ['abc', 'hello world!!', 'a', 'aGVsbG8', 'not base64!\naGVsbG8=', 'aGVs bG8=']) {
        const reply = await api('POST', '/stories', story('file', { attachment }));
        expect(reply.status, attachment).toBe(400);
        expect(reply.body.errors.map((e: { field: string }) => e.field)).toEqual(['attachment']);
      }
      const kept = await api('POST', '/stories', story('file', { attachment: 'aGVsbG8=' }));
      expect(kept.status, kept.text).toBe(201);
      expect((await api('GET', `/stories/${kept.body.id}`)).body.attachment).toBe('aGVsbG8=');
    });

    it('returns only the fields asked for with _fields', async () => {
      const created = await api('POST', '/stories', story('fields'));
      const reply = await api('GET', `/stories/${created.body.id}?_fields=name,progress`);
      expect(Object.keys(reply.body).sort()).toEqual(['_pk', '_self', '_type', 'name', 'progress']);
      expect((await api('GET', `/stories/${created.body.id}?_fields=nope`)).status).toBe(400);
    });

    it('shows only the fields the model declares, whatever else the table holds', async () => {
      const created = await api('POST', '/stories', story('stray'));
      await api('GET', `/stories/${created.body.id}`); // statements prepared before the column came
      await plantStrayColumn(engine, database.url, dir, 'story');
      const item = await api('GET', `/stories/${created.body.id}`);
      const list = await api('GET', '/stories?name=stray');
      expect(item.status).toBe(200);
      expect(list.body.total).toBe(1);
      expect(`${item.text}${list.text}`).not.toContain('stray value');
      expect(item.body).not.toHaveProperty('stray');
    });

    it('answers 404 for a missing item and for a key of the wrong type', async () => {
      const missing = await api('GET', '/stories/999999');
      expect(missing.status).toBe(404);
      expect(missing.body.message).toBe('Story 999999 not found');
      expect((await api('GET', '/stories/abc')).status).toBe(404);
      expect((await api('GET', '/users/nobody')).status).toBe(404);
    });

    it('answers an item only at the URL it names it by: 1, not 01 or +1', async () => {
      const created = await api('POST', '/stories', story('one url'));
      const key = String(created.body['id']);
      expect((await api('GET', `/stories/${key}`)).status).toBe(200);
      for (const other of [`0${key}`, `00${key}`, `+${key}`, `${key}.0`])
        expect((await api('GET', `/stories/${encodeURIComponent(other)}`)).status, other).toBe(404);
    });
  });

  describe('request bodies', () => {
    it('lists every validation problem, one per field', async () => {
      const reply = await api('POST', '/stories', {
        progress: 'much',
        surprise: 1,
        nme: 'x',
        description: 'x'.repeat(2),
      });
      expect(reply.status).toBe(400);
      expect(reply.body.errors).toEqual(
        expect.arrayContaining([
          { field: 'name', message: 'is required' },
          { field: 'surprise', message: 'is not a field here' },
          { field: 'nme', message: 'is not a field here; did you mean name?' },
          expect.objectContaining({ field: 'progress' }),
        ]),
      );
    });

    it('says that a required field may not be null, and what it takes', async () => {
      const reply = await api('POST', '/stories', story('nulled', { name: null }));
      expect([reply.status, reply.body.errors]).toEqual([
        400,
        [{ field: 'name', message: 'must be a string, not null' }],
      ]);
    });

    it('says what a date and time looks like', async () => {
      const reply = await api('POST', '/stories', story('dated', { start_date: 'next tuesday' }));
      expect([reply.status, reply.body.errors]).toEqual([
        400,
        [
          {
            field: 'start_date',
            message:
              'must be a date and time (YYYY-MM-DDTHH:MM:SSZ, or with an offset such as +01:00; one without either is taken as UTC; years 0001 to 9999)',
          },
        ],
      ]);
    });

    it('refuses to write foreign keys and generated keys, saying what to do instead', async () => {
      const reply = await api('POST', '/stories', story('fk', { owner_id: 'alice', id: 5 }));
      expect(reply.status).toBe(400);
      expect(reply.body.errors).toEqual(
        expect.arrayContaining([
          { field: 'id', message: 'is generated by the service and cannot be set' },
          { field: 'owner_id', message: 'is a foreign key: set "owner" instead' },
        ]),
      );
      expect(reply.body.errors).toHaveLength(2);
    });

    it('answers 415 to a body that is not JSON, 400 to malformed JSON, arrays and scalars', async () => {
      expect(
        (
          await api('POST', '/stories', undefined, {
            raw: 'name=x',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          })
        ).status,
      ).toBe(415);
      expect(
        (await api('POST', '/stories', undefined, { raw: 'hello', headers: { 'content-type': 'text/plain' } })).status,
      ).toBe(415);
      // A compressed body is not read as JSON that is not valid: its coding is what is not taken.
      const gzipped = await api('POST', '/stories', undefined, {
        raw: JSON.stringify(story('gzipped')),
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      });
      expect([gzipped.status, gzipped.body.errors]).toEqual([
        415,
        [{ field: 'Content-Encoding', message: 'is not taken' }],
      ]);
      const identity = await api('POST', '/stories', undefined, {
        raw: JSON.stringify(story('identity')),
        headers: { 'content-type': 'application/json', 'content-encoding': 'identity' },
      });
      expect(identity.status, identity.text).toBe(201);
      const malformed = await postJson('/stories', '{"name": ');
      expect(malformed.status).toBe(400);
      expect(malformed.body.status_code).toBe(400);
      expect((await api('POST', '/stories', [story('a')])).status).toBe(400);
      expect((await api('POST', '/stories', 'text')).status).toBe(400);
    });

    it('takes JSON under any JSON media type, with or without parameters', async () => {
      for (const type of [
        'application/json; charset=utf-8',
        'application/vnd.api+json; charset=utf-8',
        'application/vnd.a+json;v=2',
      ]) {
        const reply = await api('POST', '/stories', undefined, {
          raw: JSON.stringify(story(`typed ${type}`)),
          headers: { 'content-type': type },
        });
        expect(reply.status, `${type}: ${reply.text}`).toBe(201);
      }
      // The patch formats have rules of their own, which a PATCH here does not follow: refused by their type.
      for (const type of [
        'application/json-patch+json',
        'application/merge-patch+json',
        'application/x-json-patch+json',
        'application/+json',
      ]) {
        const patch = await api('POST', '/stories', undefined, {
          raw: JSON.stringify(story('a patch')),
          headers: { 'content-type': type },
        });
        expect([patch.status, patch.body.message], type).toEqual([415, 'send the body as application/json']);
      }
      // Two charsets, of which the first was read and a proxy may read the second (a probe's).
      const twice = await api('POST', '/stories', undefined, {
        raw: JSON.stringify(story('two charsets')),
        headers: { 'content-type': 'application/json;charset=utf-8;charset=latin1' },
      });
      expect([twice.status, twice.body.errors]).toEqual([
        400,
        [{ field: 'Content-Type', message: 'names a charset twice' }],
      ]);
    });

    it('answers 413 to a body above body_limit', async () => {
      const reply = await api('POST', '/stories', story('big', { description: 'x'.repeat(30_000) }));
      expect(reply.status).toBe(413);
      expect(reply.body.status_code).toBe(413);
    });

    it('takes a body of exactly body_limit bytes and answers 413 to one byte more', async () => {
      const sized = (bytes: number) => {
        const frame = JSON.stringify(story('edge', { description: '' }));
        return JSON.stringify(story('edge', { description: 'x'.repeat(bytes - frame.length) }));
      };
      expect(Buffer.byteLength(sized(20_000))).toBe(20_000);
      const atLimit = await api('POST', '/stories', undefined, {
        raw: sized(20_000),
        headers: { 'content-type': 'application/json' },
      });
      expect([201, 400], atLimit.text.slice(0, 200)).toContain(atLimit.status);
      const over = await api('POST', '/stories', undefined, {
        raw: sized(20_001),
        headers: { 'content-type': 'application/json' },
      });
      expect(over.status).toBe(413);
    });

    /** A POST of `raw` as it is, as JSON: bodies no client library would write. */
    const postJson = (path: string, raw: string) =>
      api('POST', path, undefined, { raw, headers: { 'content-type': 'application/json' } });

    it('rejects __proto__ however it is spelled, and pollutes no object', async () => {
      const escaped = await postJson('/stories', '{"name":"p","description":"d","\\u005f_proto__":{"polluted":"yes"}}');
      expect([escaped.status, escaped.body.message]).toEqual([
        400,
        'the request body has a "__proto__" key, which no field may have',
      ]);
      const nested = await postJson(
        '/users',
        '{"username":"proto","email":"proto@example.com","password":"secret-pw","settings":{"\\u005f_proto__":{"polluted":"yes"}}}',
      );
      expect(nested.status).toBe(400);
      const after = await api('POST', '/stories', story('clean'));
      expect(after.status).toBe(201);
      expect(after.text).not.toContain('polluted');
    });

    it('rejects a key named twice in one object, which a proxy in front may have read as the first', async () => {
      const twice = await postJson('/stories', '{"name":"first","description":"d","name":"second"}');
      expect([twice.status, twice.body.message, twice.body.errors], twice.text).toEqual([
        400,
        'the request body names the key "name" twice in one object; send it once',
        [{ field: 'name', message: 'is given twice' }],
      ]);
      expect((await api('GET', '/stories?name=second')).body.total).toBe(0);
      // A colon in a value, and one key in two objects, are no such thing.
      const fine = await postJson('/stories', '{"name":"at 12:00","description":"d","settings":{"name":"x"}}');
      expect([201, 400]).toContain(fine.status);
      expect(fine.text).not.toContain('twice');
    });

    it('takes a MongoDB operator in a body as a value, never as an operator: 400', async () => {
      const created = await api('POST', '/stories', story('operators'));
      for (const body of [{ name: { $ne: null } }, { name: { $gt: '' } }, { $set: { name: 'x' } }, { 'name.$': 'x' }]) {
        expect((await api('PATCH', `/stories/${created.body.id}`, body)).status, JSON.stringify(body)).toBe(400);
        expect((await api('PATCH', '/stories?name=operators', body)).status, JSON.stringify(body)).toBe(400);
        expect((await api('POST', '/stories', { ...story('operators-2'), ...body })).status, JSON.stringify(body)).toBe(
          400,
        );
      }
      expect((await api('GET', `/stories/${created.body.id}`)).body.name).toBe('operators');
      expect((await api('GET', '/stories?name=operators-2')).body.total).toBe(0);
    });

    it('rejects __proto__ and constructor keys', async () => {
      const reply = await postJson('/stories', '{"name":"p","description":"d","__proto__":{"admin":true}}');
      expect(reply.status).toBe(400);
      const constructor = await postJson('/stories', '{"name":"p","description":"d","constructor":{"prototype":{}}}');
      expect([constructor.status, constructor.body.message]).toEqual([
        400,
        'the request body has a "constructor" key, which no field may have',
      ]);
      // Not valid JSON is said as such.
      const broken = await postJson('/stories', '{"name":');
      expect([broken.status, broken.body.message]).toEqual([400, 'the request body is not valid JSON']);
      // Nor are bytes that are no UTF-8 (a Latin-1 "é"): refused, not stored as U+FFFD.
      const latin1 = Buffer.from('{"name":"caf\u00e9","description":"d"}', 'latin1');
      const notUtf8 = await api('POST', '/stories', undefined, {
        raw: latin1,
        headers: { 'content-type': 'application/json' },
      });
      expect([notUtf8.status, notUtf8.body.message]).toEqual([
        400,
        'the request body is not valid UTF-8; send JSON encoded in UTF-8',
      ]);
      const utf8 = await api('POST', '/stories', undefined, {
        raw: Buffer.from('{"name":"caf\u00e9","description":"d"}', 'utf8'),
        headers: { 'content-type': 'application/json' },
      });
      expect([utf8.status, utf8.body.name]).toEqual([201, 'café']);
      // Said to be in another charset: not taken (415); UTF-8 said so, in any spelling, is.
      const utf16 = await api('POST', '/stories', undefined, {
        raw: '{"name":"n","description":"d"}',
        headers: { 'content-type': 'application/json; charset=utf-16' },
      });
      expect([utf16.status, utf16.body.message]).toEqual([
        415,
        'bodies are read as UTF-8: charset utf-16 is not taken',
      ]);
      const spelled = await api('POST', '/stories', undefined, {
        raw: '{"name":"n","description":"d"}',
        headers: { 'content-type': 'application/json; Charset="UTF8"' },
      });
      expect(spelled.status, spelled.text).toBe(201);
    });

    it('takes a DELETE without a body as one, whatever its Content-Type says; a POST needs one', async () => {
      const created = await api('POST', '/stories', story('deleted with a content type'));
      const json = { headers: { 'content-type': 'application/json' }, raw: '' };
      const deleted = await api('DELETE', `/stories/${created.body.id}`, undefined, json);
      expect([deleted.status, deleted.body.message]).toEqual([200, 'Deleted']);
      const empty = await api('POST', '/stories', undefined, json);
      expect([empty.status, empty.body.message]).toEqual([400, 'the request body is empty; send a JSON object']);
    });

    // A probe's DELETE /recipes?title__startswith=Marker with {"id": 96} deleted every marker recipe.
    it('refuses a DELETE whose body names anything, of one object or of many, and deletes nothing', async () => {
      const kept = [
        (await api('POST', '/stories', story('kept by a delete with a body, one'))).body,
        (await api('POST', '/stories', story('kept by a delete with a body, two'))).body,
      ];
      for (const url of [`/stories/${kept[0].id}`, '/stories?name__startswith=kept by a delete'])
        for (const body of [{ id: kept[1].id }, [kept[1].id]]) {
          const reply = await api('DELETE', url, body);
          expect([reply.status, reply.body.message], url).toEqual([
            400,
            expect.stringMatching(/^(a DELETE takes no body|the request body)/),
          ]);
        }
      const left = await api('GET', '/stories?name__startswith=kept by a delete');
      expect(left.body.total).toBe(2);
      // An empty object is no body: the delete is made.
      const emptied = await api('DELETE', `/stories/${kept[0].id}`, {});
      expect([emptied.status, emptied.body.message]).toEqual([200, 'Deleted']);
    });

    it('answers 409 naming the field when a unique value is taken', async () => {
      await api('POST', '/users', user('bob'));
      const sameKey = await api('POST', '/users', user('bob', { email: 'other@example.com' }));
      expect(sameKey.status).toBe(409);
      const sameEmail = await api('POST', '/users', user('bobby', { email: 'bob@example.com' }));
      expect(sameEmail.status).toBe(409);
      expect(sameEmail.body.errors).toEqual([{ field: 'email', message: 'is already taken' }]);
    });
  });

  describe('relationships', () => {
    beforeAll(async () => {
      await api('POST', '/users', user('carol'));
      await api('POST', '/users', user('dave'));
    });

    it('links through the relationship field and shows keys on both sides', async () => {
      const created = await api('POST', '/stories', story('linked', { owner: 'carol', assignee: 'dave' }));
      expect(created.status, created.text).toBe(201);
      expect(created.body).toMatchObject({ owner: 'carol', owner_id: 'carol', assignee: 'dave', assignee_id: 'dave' });
      const carol = await api('GET', '/users/carol');
      expect(carol.body.stories).toEqual([created.body.id]);
      expect((await api('GET', '/users/dave')).body.assigned_stories).toEqual([created.body.id]);
    });

    it('answers 400 naming an unknown related key', async () => {
      const reply = await api('POST', '/stories', story('orphan', { owner: 'nobody' }));
      expect(reply.status).toBe(400);
      expect(reply.body.errors).toEqual([{ field: 'owner', message: 'User nobody not found' }]);
    });

    it('changes links from the other side (the backref list)', async () => {
      const a = await api('POST', '/stories', story('backref-a'));
      const b = await api('POST', '/stories', story('backref-b'));
      await api('POST', '/users', user('erin'));
      const patched = await api('PATCH', '/users/erin', { stories: [a.body.id, b.body.id] });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body.stories).toEqual([a.body.id, b.body.id]);
      expect((await api('GET', `/stories/${a.body.id}`)).body.owner).toBe('erin');
      await api('PATCH', '/users/erin', { stories: [b.body.id] });
      expect((await api('GET', `/stories/${a.body.id}`)).body.owner).toBeNull();
    });

    it('embeds _nested_relationships as objects', async () => {
      await api('POST', '/users/carol/profile', { address: '1 Main St' });
      const carol = await api('GET', '/users/carol');
      expect(carol.body.profile).toMatchObject({ address: '1 Main St', user: 'carol', _type: 'Profile' });
    });

    it('filters on a relationship by the related key', async () => {
      const reply = await api('GET', '/stories?owner=carol');
      expect(reply.body.data.map((s: { name: string }) => s.name)).toEqual(['linked']);
    });

    it('sets children’s links to null when the parent is deleted (no ref_ondelete)', async () => {
      await api('POST', '/users', user('frank'));
      const owned = await api('POST', '/stories', story('owned', { owner: 'frank' }));
      expect((await api('DELETE', '/users/frank')).status).toBe(200);
      expect((await api('GET', `/stories/${owned.body.id}`)).body).toMatchObject({ owner: null, owner_id: null });
    });
  });

  describe('collections', () => {
    const names = Array.from({ length: 25 }, (_, i) => `q${String(i).padStart(2, '0')}`);

    beforeAll(async () => {
      for (const [i, name] of names.entries()) {
        const reply = await api(
          'POST',
          '/stories',
          story(name, {
            progress: i / 24,
            completed: i % 2 === 0,
            reads: i,
            due_date: i < 5 ? null : `2026-01-${String(i).padStart(2, '0')}T00:00:00Z`,
            unicode_name: i === 3 ? "O'Brien %_\\" : `Name ${i}`,
          }),
        );
        expect(reply.status).toBe(201);
      }
    });

    const query = (q: string) => api('GET', `/stories?name__startswith=q&${q}`);

    it('pages: default 20, _limit, _page, _start, max_limit', async () => {
      const first = await query('');
      expect(first.body).toMatchObject({ total: 25, count: 20, start: 0, fields: '' });
      expect(typeof first.body.took).toBe('number');
      expect((await query('_limit=5&_page=1')).body).toMatchObject({ count: 5, start: 5 });
      expect((await query('_limit=5&_page=1')).body.data[0].name).toBe('q05');
      expect((await query('_start=23')).body).toMatchObject({ count: 2, start: 23 });
      expect((await api('GET', '/stories?_limit=500')).body.count).toBeLessThanOrEqual(50);
    });

    it('refuses bad paging with a 400 naming the parameter', async () => {
      for (const q of ['_limit=-1', '_limit=abc', '_page=1&_start=2', '_page=1.5']) {
        const reply = await query(q);
        expect(reply.status, q).toBe(400);
        expect(reply.body.errors[0].field, q).toMatch(/^_(limit|page|start)$/);
      }
    });

    it('refuses a filter with an empty or unknown operator, naming it', async () => {
      // `name__=q05` was read as `name=q05`: a mistyped operator filtered as equality.
      for (const [q, op] of [
        ['name__=q05', ''],
        ['name__bogus=q05', 'bogus'],
      ]) {
        const reply = await query(q!);
        expect([reply.status, reply.body.errors?.[0]?.field], q).toEqual([400, q!.split('=')[0]]);
        expect(reply.body.errors[0].message, q).toMatch(new RegExp(`^has an unknown operator "${op}"`));
      }
    });

    it('sorts by several fields, either way', async () => {
      const reply = await query('_sort=completed,-reads&_limit=3');
      expect(reply.body.data.map((s: { name: string }) => s.name)).toEqual(['q23', 'q21', 'q19']);
      expect((await query('_sort=nope')).status).toBe(400);
    });

    it('projects fields with _fields and -field', async () => {
      const only = await query('_fields=name&_limit=1');
      expect(Object.keys(only.body.data[0]).sort()).toEqual(['_pk', '_self', '_type', 'name']);
      expect(only.body.fields).toBe('name');
      const without = await query('_fields=-description,-arbitrary_object&_limit=1');
      expect(without.body.data[0]).not.toHaveProperty('description');
      expect(without.body.data[0]).toHaveProperty('name');
    });

    it('counts with _count', async () => {
      expect((await query('_count')).body).toEqual({ count: 25 });
    });

    it('filters by equality, lists, comparisons and null', async () => {
      const count = async (q: string) => (await query(`${q}&_count`)).body.count;
      expect(await count('completed=true')).toBe(13);
      expect(await count('reads=3,4,5')).toBe(3);
      expect(await count('reads=3&reads=4')).toBe(2);
      expect(await count('reads__gt=20')).toBe(4);
      expect(await count('reads__gte=20&reads__lt=22')).toBe(2);
      expect(await count('reads__lte=1')).toBe(2);
      expect(await count('reads__ne=0')).toBe(24);
      expect(await count('reads__in=1,2')).toBe(2);
      expect(await count('due_date__isnull=true')).toBe(5);
      expect(await count('due_date__isnull=false')).toBe(20);
      expect(await count('due_date__gte=2026-01-20')).toBe(5);
      expect(await count('due_date__lt=2026-01-10T00:00:00Z')).toBe(5);
      expect(await count('progress__gt=0.5')).toBe(12);
    });

    it('matches text: contains ignores case, startswith, and LIKE wildcards are literal', async () => {
      const count = async (q: string) => (await query(`${q}&_count`)).body.count;
      expect(await count('unicode_name__contains=NAME 1')).toBe(11);
      expect(await count('unicode_name__contains=%25')).toBe(1);
      expect(await count('unicode_name__contains=_')).toBe(1);
      expect(await count('unicode_name__startswith=O%27Brien')).toBe(1);
    });

    it('passes values as parameters: an injection attempt matches nothing', async () => {
      const reply = await api('GET', `/stories?name=${encodeURIComponent("x' OR '1'='1")}`);
      expect(reply.status).toBe(200);
      expect(reply.body.total).toBe(0);
    });

    it('refuses what an attacker tries in a query string, naming it: 400, and nothing changes', async () => {
      const total = (await query('_count')).body.count;
      for (const [q, field] of [
        ['_sort=name;drop table story', '_sort'],
        ['_limit=5&_limit=7', '_limit'],
        ['hasOwnProperty=1', 'hasOwnProperty'],
        ['__proto__=1', '__proto__'],
        ['api_key=0123456789abcdef', 'api_key'],
        ['_m=DELETE', '_m'],
        ['name[$ne]=x', 'name[$ne]'],
      ] as const) {
        const reply = await query(q);
        expect(reply.status, q).toBe(400);
        expect(
          reply.body.errors.map((e: { field: string }) => e.field),
          q,
        ).toContain(field);
      }
      expect((await query('_count')).body.count).toBe(total);
    });

    it('knows no method tunnelling: X-HTTP-Method-Override is ignored and ?_m refused, nothing is deleted', async () => {
      const target = (await api('GET', '/stories?name=q00')).body.data[0];
      const patched = await api(
        'PATCH',
        `/stories/${target.id}`,
        { reads: 7 },
        { headers: { 'x-http-method-override': 'DELETE' } },
      );
      expect(patched.status).toBe(200);
      expect(patched.body.reads).toBe(7);
      expect(
        (await api('POST', '/stories', story('override'), { headers: { 'x-http-method-override': 'DELETE' } })).status,
      ).toBe(201);
      const tunnelled = await api('PATCH', `/stories/${target.id}?_m=DELETE`, { reads: 8 });
      expect([tunnelled.status, tunnelled.body.errors]).toEqual([
        400,
        [{ field: '_m', message: 'is not a query parameter here' }],
      ]);
      expect((await api('GET', `/stories/${target.id}`)).body.reads).toBe(7);
    });

    it('answers 400 naming an unknown field, operator or unparsable value', async () => {
      for (const [q, field] of [
        ['nope=1', 'nope'],
        ['reads__near=1', 'reads__near'],
        ['reads=many', 'reads'],
        ['due_date__gt=yesterday', 'due_date__gt'],
        ['completed=maybe', 'completed'],
        ['q=words&_search_fields=nope', '_search_fields'],
      ] as const) {
        const reply = await api('GET', `/stories?${q}`);
        expect(reply.status, q).toBe(400);
        expect(
          reply.body.errors.map((e: { field: string }) => e.field),
          q,
        ).toContain(field);
      }
    });

    it('filters list fields by an item', async () => {
      await api('POST', '/users', user('grace', { groups: ['admin', 'user'] }));
      const reply = await api('GET', '/users?groups=admin');
      expect(reply.body.data.map((u: { username: string }) => u.username)).toEqual(['grace']);
    });
  });

  describe('writing items and collections', () => {
    it('PATCH changes only the sent fields, sets onupdate fields, answers Location', async () => {
      const created = await api('POST', '/stories', story('patch-me', { progress: 0.5 }));
      expect(created.body.updated_at).toBeNull();
      const reply = await api('PATCH', `/stories/${created.body.id}`, { completed: true });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('location')).toBe(created.body._self);
      expect(reply.body).toMatchObject({ completed: true, progress: 0.5, name: 'patch-me' });
      expect(reply.body.updated_at).toMatch(/Z$/);
    });

    it('refuses a filter or any query parameter on a create or a write of one object: it would be dropped', async () => {
      const created = await api('POST', '/stories', story('filtered', { progress: 0.5 }));
      const at = `/stories/${created.body.id}`;
      for (const [method, path, body] of [
        ['DELETE', `${at}?progress=0.9`, undefined],
        ['PATCH', `${at}?progress=0.9`, { completed: true }],
        ['PUT', `${at}?_fields=name`, story('filtered')],
        ['POST', '/stories?name=other', story('filtered too')],
      ] as const) {
        const reply = await api(method, path, body);
        expect([reply.status, reply.body.errors], `${method} ${path}`).toEqual([
          400,
          [{ field: path.split('?')[1]!.split('=')[0], message: 'is not a query parameter here' }],
        ]);
      }
      // Nothing was written: the story is as it was, and none other was made.
      expect((await api('GET', at)).body).toMatchObject({ name: 'filtered', progress: 0.5, completed: false });
      expect((await api('GET', '/stories?name=filtered too')).body.total).toBe(0);
    });

    it('PATCH cannot change the primary key', async () => {
      const reply = await api('PATCH', '/users/alice', { username: 'mallory' });
      expect(reply.status).toBe(400);
      expect(reply.body.errors).toEqual([{ field: 'username', message: 'cannot be changed' }]);
      expect((await api('PATCH', '/users/alice', { username: 'alice', first_name: 'Al' })).status).toBe(200);
    });

    it('PUT replaces: absent optional fields return to their defaults, absent required ones are a 400', async () => {
      const created = await api('POST', '/stories', story('put-me', { progress: 0.9, completed: true, reads: 7 }));
      expect(created.body.created_at).toMatch(/^\d{4}-/);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const reply = await api('PUT', `/stories/${created.body.id}`, story('put-me-too'));
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ name: 'put-me-too', progress: 0, completed: false, reads: 0, due_date: null });
      // `created_at` (default {{now}}) is when the story was created, not when it was replaced.
      expect(reply.body.created_at).toBe(created.body.created_at);
      expect((await api('GET', `/stories/${created.body.id}`)).body.created_at).toBe(created.body.created_at);
      const dated = await api(
        'PUT',
        `/stories/${created.body.id}`,
        story('dated', { created_at: '2020-01-02T03:04:05Z' }),
      );
      expect(dated.body.created_at).toBe('2020-01-02T03:04:05Z');
      const missing = await api('PUT', `/stories/${created.body.id}`, { name: 'only' });
      expect(missing.status).toBe(400);
      expect(missing.body.errors).toEqual([{ field: 'description', message: 'is required' }]);
    });

    it('DELETE removes an item', async () => {
      const created = await api('POST', '/stories', story('delete-me'));
      const reply = await api('DELETE', `/stories/${created.body.id}`);
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ status_code: 200, message: 'Deleted' });
      expect((await api('GET', `/stories/${created.body.id}`)).status).toBe(404);
    });

    it('PATCH on a collection changes the objects the filters select', async () => {
      for (const name of ['bulk-1', 'bulk-2', 'bulk-3']) await api('POST', '/stories', story(name));
      const reply = await api('PATCH', '/stories?name__startswith=bulk-&name__ne=bulk-3', { reads: 42 });
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ status_code: 200, count: 2, message: 'Updated 2 Story(s) objects' });
      expect((await api('GET', '/stories?name__startswith=bulk-&reads=42&_count')).body.count).toBe(2);
    });

    it('a bulk change is all or nothing', async () => {
      await api('POST', '/users', user('heidi'));
      await api('POST', '/users', user('ivan'));
      const reply = await api('PATCH', '/users?username__in=heidi,ivan', { email: 'same@example.com' });
      expect(reply.status).toBe(409);
      expect((await api('GET', '/users/heidi')).body.email).toBe('heidi@example.com');
      expect((await api('GET', '/users/ivan')).body.email).toBe('ivan@example.com');
    });

    it('DELETE on a collection deletes the objects the filters select', async () => {
      for (const name of ['gone-1', 'gone-2']) await api('POST', '/stories', story(name));
      const reply = await api('DELETE', '/stories?name__startswith=gone-');
      expect(reply.body).toMatchObject({ count: 2, message: 'Deleted 2 Story(s) objects' });
      expect((await api('GET', '/stories?name__startswith=gone-&_count')).body.count).toBe(0);
      expect((await api('DELETE', '/stories?_limit=1')).status).toBe(400);
    });
  });

  describe('sub-resources', () => {
    beforeAll(async () => {
      await api('POST', '/users', user('judy'));
    });

    it('a singular sub-resource: POST links, a second POST is a 409, GET and PATCH work', async () => {
      expect((await api('GET', '/users/judy/profile')).status).toBe(404);
      const created = await api('POST', '/users/judy/profile', { address: 'Elm St' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ address: 'Elm St', user: 'judy' });
      expect((await api('POST', '/users/judy/profile', { address: 'again' })).status).toBe(409);
      expect((await api('PATCH', '/users/judy/profile', { address: 'Oak St' })).body.address).toBe('Oak St');
      expect((await api('GET', '/users/judy/profile')).body.address).toBe('Oak St');
      expect((await api('GET', '/users/nobody/profile')).status).toBe(404);
      expect((await api('POST', '/users/judy/profile', { user: 'alice' })).status).toBe(400);
    });

    it('a dict attribute: GET reads it, POST merges into it', async () => {
      expect((await api('GET', '/users/judy/settings')).body).toEqual({});
      expect((await api('POST', '/users/judy/settings', { theme: 'dark' })).status).toBe(201);
      const merged = await api('POST', '/users/judy/settings', { lang: 'en' });
      expect(merged.body).toEqual({ theme: 'dark', lang: 'en' });
      expect((await api('GET', '/users/judy')).body.settings).toEqual({ theme: 'dark', lang: 'en' });
      // A query parameter applies to no field's value: refused, and nothing is merged.
      for (const [method, body] of [
        ['GET', undefined],
        ['POST', { size: 'xl' }],
      ] as const) {
        const refused = await api(method, '/users/judy/settings?lang=fr', body);
        expect([refused.status, refused.body.errors]).toEqual([
          400,
          [{ field: 'lang', message: 'is not a query parameter here' }],
        ]);
      }
      expect((await api('GET', '/users/judy/settings')).body).toEqual({ theme: 'dark', lang: 'en' });
    });

    it('a list attribute: POST adds items and "-item" removes them; choices hold', async () => {
      expect((await api('GET', '/users/judy/groups')).body).toEqual(['user']);
      expect((await api('POST', '/users/judy/groups', { admin: true })).body).toEqual(['user', 'admin']);
      expect((await api('POST', '/users/judy/groups', { '-user': true })).body).toEqual(['admin']);
      const bad = await api('POST', '/users/judy/groups', { wizard: true });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].field).toBe('wizard');
    });
  });

  describe('client mistakes that the database would choke on', () => {
    it('a key or value out of the column’s range is a 404 or 400, never a 500', async () => {
      expect((await api('GET', '/stories/3000000000')).status).toBe(404);
      expect((await api('GET', '/stories/-3000000000')).status).toBe(404);
      const filter = await api('GET', '/stories?reads__gt=3000000000');
      expect(filter.status).toBe(400);
      expect(filter.body.errors[0]).toEqual({
        field: 'reads__gt',
        message: '"3000000000" is not a whole number from -2147483648 to 2147483647',
      });
      expect((await api('POST', '/stories', story('range', { available_for: 3_000_000_000 }))).status).toBe(400);
      expect((await api('POST', '/stories', story('range', { price: 1e30 }))).status).toBe(400);
      expect((await api('POST', '/stories', story('range', { assignee: 'x'.repeat(100) }))).status).toBe(400);
    });

    it('many different filter lists: every statement shape keeps working', async () => {
      for (let n = 1; n <= 1010; n++) {
        const reply = await api('GET', `/stories?_count&reads__in=${Array.from({ length: n }, (_, i) => i).join(',')}`);
        if (reply.status !== 200) throw new Error(`${n} values: ${reply.status} ${reply.text}`);
      }
      expect((await api('GET', '/stories?_count&completed=false&progress__lt=0.4&name__contains=q')).status).toBe(200);
    });

    it('concurrent merges into a dict attribute all land', async () => {
      await api('POST', '/users', user('merger'));
      const replies = await Promise.all(
        Array.from({ length: 12 }, (_, i) => api('POST', '/users/merger/settings', { [`key${i}`]: i })),
      );
      expect(replies.map((r) => r.status)).toEqual(Array(12).fill(201));
      expect(Object.keys((await api('GET', '/users/merger/settings')).body).sort()).toEqual(
        Array.from({ length: 12 }, (_, i) => `key${i}`).sort(),
      );
    });
  });

  describe('failures', () => {
    // SQL: a table the service reads is gone, as when another version migrated the database (a
    // 503 a load balancer retries elsewhere); MongoDB: a command fails (a 500).
    it('answers without internals when the database fails, and logs the details with the request id', async () => {
      // Break the story table (collection) behind the service's back, so that queries on it fail.
      await breakStoryTable(engine, database.url, dir);
      const reply = await api('GET', '/stories');
      if (engine === 'mongodb') {
        expect(reply.status).toBe(500);
        expect(reply.body).toMatchObject({ status_code: 500, message: 'Internal Server Error' });
      } else {
        expect([reply.status, reply.headers.get('retry-after')]).toEqual([503, '5']);
        expect(reply.body.message).toBe(
          'the service does not match its database (an upgrade may be under way); try again in a moment',
        );
        await expect.poll(() => service.output(), { timeout: 5000 }).toContain('migrated by another version');
      }
      expect(reply.text).not.toMatch(/select|story|sqlite|relation|stack/i);
      // The log is written asynchronously.
      await expect.poll(() => service.output(), { timeout: 5000 }).toContain(reply.body.request_id);
    });

    it('stops on SIGTERM: exit code 0', async () => {
      expect(await service.stop('SIGTERM')).toBe(0);
      expect(service.output()).toContain('shutting down');
    });
  });
});
