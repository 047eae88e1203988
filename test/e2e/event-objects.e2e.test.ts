/**
 * An event's object is the object an admin reads (relationships as keys), whichever way its write
 * went, on every engine, for every field type of fixtures/filters, a to-one and a to-many
 * relationship. On PostgreSQL a write with no handlers and no If-Match is one statement that
 * appends its event (lib/sql/recorded-writes.ts: the log makes the object of the stored row); a
 * write that sets a relationship runs in a transaction inside the repository; a write with
 * If-Match runs in the route's transaction and records the object the write returned. A write
 * that fails appends nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, storedEvents, testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api } from '../support/http.js';
import { rootAuthEnv } from '../support/library.js';
import { builtProject } from '../support/project.js';
import { newSecret, Receiver, type Received } from '../support/receiver.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/v1';
type Rec = Record<string, unknown>;

/** One value of every field type Item has (and a nested dict, a large integer, a leap day). */
const ITEM: Rec = {
  code: 'every-type',
  note: 'it\'s "quoted" — and ünïcode',
  count: 3,
  big: 2 ** 40,
  small: -3,
  ratio: 1.25,
  price: 10.55,
  active: true,
  seen_at: '2026-01-02T03:04:05Z',
  day: '2024-02-29',
  clock: '09:30:00',
  wait: 3600,
  size: 'm',
  tags: ['red', 'blue'],
  nums: [1, 2],
  meta: { a: { b: [1, 'x', null] } },
  marker: 7,
};

const fieldsOf = (object: Rec): Rec => Object.fromEntries(Object.entries(object).filter(([k]) => !k.startsWith('_')));

/** A service of `fixture` (below `base`) with a webhook to a receiver on `engine`, and how to wait for its events. */
function eventService(
  fixture: string,
  engine: (typeof ENGINES)[number],
  env: Record<string, string> = {},
  base = BASE,
) {
  const receiver = new Receiver(newSecret());
  const running = { api: undefined as unknown as Api };
  let database: TestDatabase;
  let service: RunningService;
  let dir: string;

  beforeAll(async () => {
    dir = await builtProject(fixture, `e2e-event-objects-${engine}`);
    await receiver.start();
    database = await testDatabase(engine, dir, 'event_objects');
    service = await startService(
      dir,
      { ...database.env, ...env, SVC_WEBHOOKS_AUDIT_URL: receiver.url, SVC_WEBHOOKS_AUDIT_SECRET: receiver.secret },
      base,
    );
    running.api = apiClient(service.origin, base);
  }, 600_000);

  afterAll(async () => {
    await service?.stop();
    await receiver.stop();
    await database?.drop();
  });

  const api: Api = (...args) => running.api(...args);
  const events = (type: string, pk: unknown): Received[] =>
    [...receiver.delivered().values()]
      .filter((r) => r.type === type && r.pk === String(pk))
      .sort((a, b) => a.seq - b.seq);
  /** The object of the `nth` event of `type` for object `pk`, once delivered. */
  const eventObject = async (type: string, pk: unknown, nth = 1): Promise<Rec> => {
    await receiver.waitFor(() => events(type, pk).length >= nth, 20_000, `${type} ${String(pk)} #${nth}`);
    return events(type, pk)[nth - 1]!.object;
  };
  /** What an admin reads of an object, as an event names it: its fields, relationships as keys. */
  const read = async (path: string): Promise<Rec> => {
    const reply = await api('GET', path);
    expect(reply.status, reply.text).toBe(200);
    return reply.body as Rec;
  };
  /** What the outbox stores, as text (read behind the service's back). */
  const stored = () => storedEvents(engine, database.url, dir);
  return { api, receiver, eventObject, read, stored };
}

describe.each(ENGINES)('event objects on %s', (engine) => {
  const { api, receiver, eventObject, read: readPath } = eventService('filters', engine);
  const read = (id: unknown) => readPath(`/items/${String(id)}`);

  it('gives the object an admin reads, for every field type, on create and update, with or without If-Match', async () => {
    const owners = await Promise.all(
      ['o1', 'o2'].map(async (name) => (await api('POST', '/owners', { name })).body as Rec),
    );
    // No relationship in the body (the owner is the default one): on PostgreSQL, one statement.
    const created = await api('POST', '/items', ITEM);
    expect(created.status, created.text).toBe(201);
    const id = (created.body as Rec)['id'];
    const create = await eventObject('Item.create', id);
    expect(fieldsOf(create)).toEqual(fieldsOf(await read(id)));
    expect(create).toMatchObject({ ...ITEM, owner: owners[0]!['id'], labels: [], _type: 'Item', _pk: String(id) });

    // Two labels point at the item: its to-many relationship, kept in the labels' table.
    const labels: unknown[] = [];
    for (const name of ['l1', 'l2']) {
      const label = await api('POST', `/items/${String(id)}/labels`, { name });
      expect(label.status, label.text).toBe(201);
      labels.push((label.body as Rec)['id']);
    }

    // No If-Match, no relationship: on PostgreSQL, one statement.
    expect((await api('PATCH', `/items/${String(id)}`, { note: 'plain', ratio: -2.5, meta: null })).status).toBe(200);
    const plain = await eventObject('Item.update', id, 1);
    expect(fieldsOf(plain)).toEqual(fieldsOf(await read(id)));
    expect(plain).toMatchObject({ note: 'plain', active: true, ratio: -2.5, meta: null, labels });

    // A relationship set: the repository's own transaction.
    expect((await api('PATCH', `/items/${String(id)}`, { owner: owners[1]!['id'] })).status).toBe(200);
    const moved = await eventObject('Item.update', id, 2);
    expect(fieldsOf(moved)).toEqual(fieldsOf(await read(id)));
    expect(moved['owner']).toBe(owners[1]!['id']);

    // If-Match: the route's transaction, which records the object the write returned.
    const etag = (await api('GET', `/items/${String(id)}`)).headers.get('etag')!;
    const matched = await api(
      'PATCH',
      `/items/${String(id)}`,
      { count: null, tags: [] },
      { headers: { 'if-match': etag } },
    );
    expect(matched.status, matched.text).toBe(200);
    const checked = await eventObject('Item.update', id, 3);
    expect(fieldsOf(checked)).toEqual(fieldsOf(await read(id)));
    expect(checked).toMatchObject({ count: null, tags: [], labels });
    // In the order of the answers, on every engine (PostgreSQL's jsonb keeps keys by their length).
    const order = Object.keys(await read(id)).filter((key) => key !== '_self');
    for (const event of [create, plain, moved, checked]) expect(Object.keys(event)).toEqual(order);
  });

  it('gives a deleted object as it was, its to-many keys too, with or without If-Match', async () => {
    for (const ifMatch of [false, true]) {
      const created = await api('POST', '/items', { ...ITEM, code: `gone-${String(ifMatch)}` });
      expect(created.status, created.text).toBe(201);
      const id = (created.body as Rec)['id'];
      expect((await api('POST', `/items/${String(id)}/labels`, { name: 'kept' })).status).toBe(201);
      const before = await read(id);
      const headers: Record<string, string> = ifMatch
        ? { 'if-match': (await api('GET', `/items/${String(id)}`)).headers.get('etag')! }
        : {};
      const deleted = await api('DELETE', `/items/${String(id)}`, undefined, { headers });
      expect(deleted.status, deleted.text).toBe(200);
      const gone = await eventObject('Item.delete', id);
      expect(fieldsOf(gone), `If-Match: ${String(ifMatch)}`).toEqual(fieldsOf(before));
      expect((gone['labels'] as unknown[]).length).toBe(1);
      // The label is unlinked with it (NULLIFY, the default), and told so.
      const [label] = gone['labels'] as unknown[];
      expect(await eventObject('Label.update', label)).toMatchObject({ item: null, name: 'kept' });
    }
  });

  it('gives an event for each object a link moves: the one it takes, and the one it takes it from', async () => {
    const item = async (code: string) => {
      const created = await api('POST', '/items', { ...ITEM, code });
      expect(created.status, created.text).toBe(201);
      return (created.body as Rec)['id'];
    };
    // Items link to the first owner by default: there is one, whether or not another test made it.
    if ((await api('GET', '/owners')).body['total'] === 0) await api('POST', '/owners', { name: 'o1' });
    const first = await item('moves-from');
    const second = await item('moves-to');
    const label = (await api('POST', `/items/${String(first)}/labels`, { name: 'moving' })).body as Rec;
    const kept = (await api('POST', `/items/${String(first)}/labels`, { name: 'staying' })).body as Rec;
    // The label's row changes (its item), and so does what the first item lists.
    expect((await api('PATCH', `/items/${String(second)}`, { labels: [label['id']] })).status).toBe(200);
    const moved = await eventObject('Label.update', label['id']);
    expect(fieldsOf(moved)).toEqual(fieldsOf(await readPath(`/labels/${String(label['id'])}`)));
    expect(moved['item']).toBe(second);
    const left = await eventObject('Item.update', first);
    expect(left['labels']).toEqual([kept['id']]);
    expect(fieldsOf(left)).toEqual(fieldsOf(await read(first)));
    // Dropped from the second item: the label is linked to none.
    expect((await api('PATCH', `/items/${String(second)}`, { labels: [] })).status).toBe(200);
    expect((await eventObject('Label.update', label['id'], 2))['item']).toBeNull();
    // A create that links it moves it too (it was written in one step, without the event, when no
    // x-ACL restricted the link).
    const third = await api('POST', '/items', { ...ITEM, code: 'moves-in-create', labels: [label['id']] });
    expect(third.status, third.text).toBe(201);
    expect((await eventObject('Label.update', label['id'], 3))['item']).toBe((third.body as Rec)['id']);
  });

  it('appends nothing for a write that fails', async () => {
    const taken = await api('POST', '/items', { ...ITEM, code: 'taken' });
    expect(taken.status).toBe(201);
    const again = await api('POST', '/items', { ...ITEM, code: 'taken' });
    expect(again.status, again.text).toBe(409);
    const missing = await api('PATCH', '/items/999999', { note: 'nobody' });
    expect(missing.status).toBe(404);
    // A later write's event arrives after anything the failed ones could have appended.
    const later = (await api('POST', '/items', { ...ITEM, code: 'later' })).body as Rec;
    await eventObject('Item.create', later['id']);
    const codes = [...receiver.delivered().values()].map((r) => r.object['code']);
    expect(codes.filter((c) => c === 'taken')).toHaveLength(1);
    expect([...receiver.delivered().values()].some((r) => r.pk === '999999')).toBe(false);
  });
});

describe.each(ENGINES)('the objects a delete takes with it on %s (fixtures/blog)', (engine) => {
  const { api, eventObject, read } = eventService('blog', engine, {}, '/api/v2');

  it('gives a delete event for each object it deletes, however deep, and an update for each it unlinks', async () => {
    const author = async (name: string) =>
      ((await api('POST', '/authors', { name, email: `${name}@example.com` })).body as Rec)['id'];
    const [ada, bob] = await Promise.all([author('ada'), author('bob')]);
    const post = async (slug: string, fields: Rec) => {
      const made = await api('POST', '/posts', { slug, title: slug, ...fields });
      expect(made.status, made.text).toBe(201);
      return read(`/posts/${slug}`);
    };
    // Ada's posts go with her (CASCADE); the one she reviews stays, with no reviewer (NULLIFY).
    const written = [await post('ada-1', { author: ada }), await post('ada-2', { author: ada })];
    const reviewed = await post('bob-1', { author: bob, reviewer: ada });
    const deleted = await api('DELETE', `/authors/${String(ada)}`);
    expect(deleted.status, deleted.text).toBe(200);
    await eventObject('Author.delete', ada);
    for (const gone of written)
      expect(fieldsOf(await eventObject('Post.delete', gone['slug']))).toEqual(fieldsOf(gone));
    const unlinked = await eventObject('Post.update', reviewed['slug']);
    expect(unlinked).toMatchObject({ slug: 'bob-1', author: bob, reviewer: null });
    expect(fieldsOf(unlinked)).toEqual(fieldsOf(await read('/posts/bob-1')));

    // Replies go with the comment they answer, and theirs with them (CASCADE through a self-reference).
    const comment = async (fields: Rec) =>
      ((await api('POST', '/comments', { text: 'a comment', post: 'bob-1', ...fields })).body as Rec)['id'];
    const root = await comment({});
    const reply = await comment({ parent: root });
    const replyToReply = await comment({ parent: reply });
    expect((await api('DELETE', `/comments/${String(root)}`)).status).toBe(200);
    await eventObject('Comment.delete', root);
    expect(await eventObject('Comment.delete', reply)).toMatchObject({ parent: root });
    expect(await eventObject('Comment.delete', replyToReply)).toMatchObject({ parent: reply });

    // A change of many (`DELETE /authors?name=…`) too.
    const cy = await author('cy');
    const cys = await post('cy-1', { author: cy });
    expect((await api('DELETE', '/authors?name=cy')).status).toBe(200);
    expect(fieldsOf(await eventObject('Post.delete', 'cy-1'))).toEqual(fieldsOf(cys));
  });
});

describe.each(ENGINES)('one-step writes of an object without relationships on %s', (engine) => {
  const { api, receiver, eventObject, read } = eventService('ramses-starter', engine);

  it('gives the object an admin reads on create, update and delete, and nothing for a failed write', async () => {
    const created = await api('POST', '/items', { name: 'first', description: "o'clock" });
    expect(created.status, created.text).toBe(201);
    const id = String((created.body as Rec)['id']);
    const path = `/items/${id}`;
    expect(fieldsOf(await eventObject('Item.create', id))).toEqual(fieldsOf(await read(path)));
    expect((await api('PATCH', path, { description: null })).status).toBe(200);
    expect(fieldsOf(await eventObject('Item.update', id))).toEqual(fieldsOf(await read(path)));
    const etag = (await api('GET', path)).headers.get('etag')!;
    expect((await api('PATCH', path, { name: 'checked' }, { headers: { 'if-match': etag } })).status).toBe(200);
    expect(await eventObject('Item.update', id, 2)).toMatchObject({ name: 'checked', description: null });
    const before = await read(path);
    expect((await api('DELETE', path)).status).toBe(200);
    expect(fieldsOf(await eventObject('Item.delete', id))).toEqual(fieldsOf(before));

    // Failed writes: a body the schema refuses, an object that is not there (gone, or never was).
    expect((await api('POST', '/items', { description: 'no name' })).status).toBe(400);
    expect((await api('PATCH', path, { name: 'gone' })).status).toBe(404);
    expect((await api('DELETE', '/items/999999')).status).toBe(404);
    const later = String(((await api('POST', '/items', { name: 'later' })).body as Rec)['id']);
    await eventObject('Item.create', later);
    const delivered = [...receiver.delivered().values()];
    expect(delivered.map((r) => r.type)).toEqual([
      'Item.create',
      'Item.update',
      'Item.update',
      'Item.delete',
      'Item.create',
    ]);
  });

  it('keeps each of many concurrent writes whole, with its event, when some of them fail (SQLite commits them together)', async () => {
    const existing: string[] = [];
    for (let i = 0; i < 8; i++)
      existing.push(String(((await api('POST', '/items', { name: `before ${i}` })).body as Rec)['id']));
    const missing = ['999991', '999992', '999993', '999994'];
    const [created, patched, deleted, patchedMissing, deletedMissing] = await Promise.all([
      Promise.all(Array.from({ length: 8 }, (_, i) => api('POST', '/items', { name: `together ${i}` }))),
      Promise.all(existing.slice(0, 4).map((id) => api('PATCH', `/items/${id}`, { description: 'patched together' }))),
      Promise.all(existing.slice(4).map((id) => api('DELETE', `/items/${id}`))),
      Promise.all(missing.slice(0, 2).map((id) => api('PATCH', `/items/${id}`, { description: 'nobody' }))),
      Promise.all(missing.slice(2).map((id) => api('DELETE', `/items/${id}`))),
    ]);
    expect(created.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect([...patched, ...deleted].map((r) => r.status)).toEqual(Array(8).fill(200));
    expect([...patchedMissing, ...deletedMissing].map((r) => r.status)).toEqual(Array(4).fill(404));

    for (const reply of created) {
      const id = String((reply.body as Rec)['id']);
      expect(fieldsOf(await eventObject('Item.create', id))).toEqual(fieldsOf(await read(`/items/${id}`)));
    }
    for (const id of existing.slice(0, 4)) {
      expect(await eventObject('Item.update', id)).toMatchObject({ description: 'patched together' });
      expect(await read(`/items/${id}`)).toMatchObject({ description: 'patched together' });
    }
    for (const id of existing.slice(4)) {
      await eventObject('Item.delete', id);
      expect((await api('GET', `/items/${id}`)).status).toBe(404);
    }
    // The failed writes appended nothing (the events of the others have arrived by now).
    expect([...receiver.delivered().values()].filter((r) => missing.includes(r.pk))).toEqual([]);
  });
});

describe.each(ENGINES)('secrets on %s', (engine) => {
  // The library's users have no handlers and no processors: an admin's POST of one is a one-step
  // write (a PATCH takes a transaction: users have books and notes, kept in other tables).
  const { api, eventObject, stored } = eventService('library', engine, rootAuthEnv());

  it('keeps a password, its hash and hidden fields out of the outbox and of every event', async () => {
    const password = 'correct-horse-battery';
    const login = await api('POST', '/auth/login', { login: 'root', password: 'root-password' });
    const headers = { cookie: /auth_tkt=[^;]*/.exec(login.headers.get('set-cookie') ?? '')![0] };
    const created = await api('POST', '/users', { username: 'sam', email: 'sam@example.com', password }, { headers });
    expect(created.status, created.text).toBe(201);
    const registered = await api('POST', '/auth/register', { username: 'kim', email: 'kim@example.com', password });
    expect(registered.status, registered.text).toBeLessThan(300);
    const patched = await api('PATCH', '/users/sam', { email: 'samuel@example.com' }, { headers });
    expect(patched.status, patched.text).toBe(200);
    expect(await eventObject('User.create', 'sam')).toMatchObject({ username: 'sam', books: [], notes: [] });
    expect(await eventObject('User.register', 'kim')).not.toHaveProperty('password');
    const update = await eventObject('User.update', 'sam');
    expect(update).toMatchObject({ username: 'sam', email: 'samuel@example.com' });
    expect(update).not.toHaveProperty('password');
    const outbox = await stored();
    expect(outbox).toContain('samuel@example.com');
    expect(outbox).not.toContain(password);
    expect(outbox).not.toMatch(/\$argon2|password/);
  });
});
