/**
 * Durable events (issue 26), on SQLite, PostgreSQL and the MongoDB test server, with
 * fixtures/library and a local receiver (test/support/receiver.ts) that checks every signature:
 *
 * - every committed change (create, update, replace, delete, each object of a bulk change,
 *   register) appends one event, delivered signed; a rolled-back request appends none;
 * - a receiver that fails is tried again with backoff, `Retry-After` is honoured, the events of
 *   one object arrive in seq order (a later one waits for the earlier one's acknowledgement);
 * - after the last attempt a delivery is dead, listed to admins only, and sent again on demand;
 * - a receiver that is down gets everything once it is back;
 * - delivered events are pruned after `events.retention`, and a feed that asks for pruned ones
 *   is told to reload.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { openFeed } from '../support/feed.js';
import { apiClient, type Api, type Reply } from '../support/http.js';
import { rootAuthEnv, MEMBER_PASSWORD, withLibraryFunctions } from '../support/library.js';
import { generatedProject } from '../support/project.js';
import { newSecret, objectKey, Receiver } from '../support/receiver.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/v1';
type Rec = Record<string, unknown>;

let dir: string;

beforeAll(async () => {
  dir = await generatedProject('library', 'e2e-webhooks');
  await withLibraryFunctions(dir);
}, 600_000);

export function serviceEnv(database: TestDatabase, receiver: Receiver, extra: Record<string, string> = {}) {
  return {
    ...database.env,
    ...rootAuthEnv(),
    SVC_WEBHOOKS_AUDIT_URL: receiver.url,
    SVC_WEBHOOKS_AUDIT_SECRET: receiver.secret,
    SVC_WEBHOOKS_RETRY_DELAYS: '100ms,200ms',
    SVC_WEBHOOKS_MAX_ATTEMPTS: '5',
    ...extra,
  };
}

describe.each(ENGINES)('events and webhooks on %s', (engine) => {
  const receiver = new Receiver(newSecret());
  const cookies = new Map<string, string>();
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;
  const as = (who: string | null, method: string, path: string, body?: unknown): Promise<Reply> =>
    api(method, path, body, { headers: who ? { cookie: cookies.get(who)! } : {} });
  const start = async (extra: Record<string, string> = {}) => {
    service = await startService(dir, serviceEnv(database, receiver, extra), BASE);
    api = apiClient(service.origin, BASE);
  };
  const login = async (name: string, reply?: Reply) => {
    reply ??= await api('POST', '/auth/login', {
      login: name,
      password: name === 'root' ? 'root-password' : MEMBER_PASSWORD,
    });
    expect(reply.status, reply.text).toBeLessThan(300);
    cookies.set(name, /auth_tkt=[^;]*/.exec(reply.headers.get('set-cookie') ?? '')![0]);
  };
  /** The events delivered (2xx) so far, in the order they arrived. */
  const delivered = () => receiver.received.filter((r) => r.status < 300);

  beforeAll(async () => {
    await receiver.start();
    database = await testDatabase(engine, dir, 'webhooks');
    await start();
    await login('root');
    for (const name of ['ann', 'ben'])
      await login(
        name,
        await api('POST', '/auth/register', {
          username: name,
          email: `${name}@example.com`,
          password: MEMBER_PASSWORD,
        }),
      );
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await receiver.stop();
    await database?.drop();
  });

  it('refuses to start with a subscription to events no model of the API sends (a typo, a dropped model)', async () => {
    const typo = { SVC_WEBHOOKS_TYPO_URL: receiver.url, SVC_WEBHOOKS_TYPO_SECRET: receiver.secret };
    await expect(
      startService(
        dir,
        serviceEnv(database, receiver, { ...typo, SVC_WEBHOOKS_TYPO_EVENTS: 'Book.create, Athor.*' }),
        BASE,
      ),
    ).rejects.toThrow(
      'webhooks.typo.events: "Athor.*" names no model of this service (did you mean `Author`?) (set in service.ini or SVC_WEBHOOKS_TYPO_EVENTS)',
    );
    // svcgen's own models send no events: a subscription cannot name them.
    await expect(
      startService(
        dir,
        serviceEnv(database, receiver, { ...typo, SVC_WEBHOOKS_TYPO_EVENTS: 'AuthCredential.*' }),
        BASE,
      ),
    ).rejects.toThrow(/"AuthCredential.\*" names no model of this service/);
  });

  it('sends one signed event per committed change, in seq order, and none for a rolled-back request', async () => {
    const author = (await as('ann', 'POST', '/authors', { name: 'Ursula' })).body as Rec;
    const id = String(author['id']);
    expect((await as('ann', 'PATCH', `/authors/${id}`, { name: 'Ursula K.' })).status).toBe(200);
    expect((await as('ann', 'PUT', `/authors/${id}`, { name: 'Ursula K. Le Guin' })).status).toBe(200);
    expect((await as('ann', 'POST', '/authors', { name: 'Other' })).status).toBe(201);
    // Rolled back inside its transaction: the author it names does not exist.
    expect((await as('ann', 'POST', '/books', { title: 'Lost', author: 999_999 })).status).toBe(400);
    const book = (await as('ann', 'POST', '/books', { title: 'Earthsea', author: author['id'] })).body as Rec;
    expect((await as('root', 'PATCH', `/authors?name__startswith=Other`, { name: 'Renamed' })).status).toBe(200);
    expect((await as('ann', 'DELETE', `/books/${String(book['id'])}`)).status).toBe(200);

    await receiver.waitFor(() => delivered().some((r) => r.type === 'Book.delete'));
    // Objects are delivered side by side: only one object's events arrive in seq order.
    const arrived = delivered();
    const got = [...arrived].sort((a, b) => a.seq - b.seq);
    expect(got.every((r) => r.signed)).toBe(true);
    expect(got.map((r) => r.type)).toEqual([
      'User.register',
      'User.register',
      'Author.create',
      'Author.update',
      'Author.replace',
      'Author.create',
      'Book.create',
      'Author.update',
      'Book.delete',
    ]);
    for (const key of new Set(arrived.map((r) => objectKey(r.type, r.pk)))) {
      const seqs = arrived.filter((r) => objectKey(r.type, r.pk) === key).map((r) => r.seq);
      expect(seqs, key).toEqual([...seqs].sort((a, b) => a - b));
    }
    expect(new Set(got.map((r) => r.id)).size).toBe(got.length);
    // The object after the change, as an admin reads it: no password, relationships as keys.
    const registered = got[0]!.object;
    expect(registered['username']).toBe('ann');
    expect(registered).not.toHaveProperty('password');
    expect(got.find((r) => r.type === 'Author.replace')!.object['name']).toBe('Ursula K. Le Guin');
    expect(got.find((r) => r.type === 'Book.create')!.object).toMatchObject({
      title: 'Earthsea',
      author: author['id'],
      owner: 'ann',
    });
    // A delete carries the object as it was.
    expect(got.find((r) => r.type === 'Book.delete')!.object['title']).toBe('Earthsea');
    expect(got.some((r) => r.object['title'] === 'Lost')).toBe(false);
  });

  it("tries a failing receiver again, honours Retry-After, and keeps one object's events in order", async () => {
    const note = (await as('ann', 'POST', '/notes', { text: 'v0' })).body as Rec;
    const pk = String(note['id']);
    await receiver.waitFor(() => delivered().some((r) => r.type === 'Note.create' && r.pk === pk));
    receiver.script.set(`Note:${pk}`, [
      { status: 500 },
      { status: 500 },
      { status: 429, headers: { 'retry-after': '1' } },
    ]);
    for (const text of ['v1', 'v2', 'v3'])
      expect((await as('ann', 'PATCH', `/notes/${pk}`, { text })).status).toBe(200);
    await receiver.waitFor(() => delivered().filter((r) => r.pk === pk && r.type === 'Note.update').length === 3);
    const tries = receiver.received.filter((r) => r.pk === pk && r.type === 'Note.update');
    // v1 failed three times, then got through; v2 and v3 were not sent before it.
    expect(tries.map((r) => [r.object['text'], r.status])).toEqual([
      ['v1', 500],
      ['v1', 500],
      ['v1', 429],
      ['v1', 200],
      ['v2', 200],
      ['v3', 200],
    ]);
    // Backoff: each retry later than the one before; Retry-After: 1 waited a second at least.
    expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(40);
    expect(tries[3]!.at - tries[2]!.at).toBeGreaterThanOrEqual(950);
  });

  it('keeps a dead delivery, shows it to admins only, and sends it again on demand', async () => {
    const note = (await as('ben', 'POST', '/notes', { text: 'doomed' })).body as Rec;
    const pk = String(note['id']);
    await receiver.waitFor(() => delivered().some((r) => r.type === 'Note.create' && r.pk === pk));
    receiver.script.set(
      `Note:${pk}`,
      Array.from({ length: 5 }, () => ({ status: 503 })),
    );
    expect((await as('ben', 'PATCH', `/notes/${pk}`, { text: 'doomed twice' })).status).toBe(200);
    await receiver.waitFor(
      () => receiver.received.filter((r) => r.type === 'Note.update' && r.pk === pk && r.status === 503).length === 5,
    );
    let listed: Reply;
    for (;;) {
      listed = await as('root', 'GET', '/_webhooks/audit/deliveries?status=dead');
      if ((listed.body.data as Rec[]).length) break;
      await sleep(50);
    }
    const dead = (listed.body.data as Rec[])[0]!;
    expect(dead).toMatchObject({ status: 'dead', attempts: 5, type: 'Note.update', last_status: 503 });
    const overview = (await as('root', 'GET', '/_webhooks')).body.data as Rec[];
    expect(overview).toEqual([expect.objectContaining({ name: 'audit', dead: 1, url: receiver.url })]);
    expect(JSON.stringify(overview)).not.toContain(receiver.secret.slice(6));
    // Members and anonymous callers see nothing of it, and cannot retry.
    expect((await as('ben', 'GET', '/_webhooks')).status).toBe(403);
    expect((await as(null, 'GET', '/_webhooks/audit/deliveries')).status).toBe(401);
    expect((await as('ben', 'POST', '/_webhooks/audit/retry-dead')).status).toBe(403);
    expect((await as('root', 'POST', `/_webhooks/nope/retry-dead`)).status).toBe(404);
    // Nor does a retry take a parameter it would ignore (a dry run that retried all the same).
    const dry = await as('root', 'POST', '/_webhooks/audit/retry-dead?dry_run=true');
    expect([dry.status, dry.body.errors]).toEqual([
      400,
      [{ field: 'dry_run', message: 'is not a query parameter here' }],
    ]);
    expect((await as('root', 'GET', '/_webhooks?x=1')).status).toBe(400);
    // A seq and the list's parameters are read as written: no 0x10 for 16, no parameter ignored.
    expect(
      (await as('root', 'POST', `/_webhooks/audit/deliveries/0x${Number(dead['seq']).toString(16)}/retry`)).status,
    ).toBe(400);
    const unknown = await as('root', 'GET', '/_webhooks/audit/deliveries?next=xyz');
    expect([unknown.status, unknown.body.errors], unknown.text).toEqual([
      400,
      [{ field: 'next', message: 'is not a parameter of the deliveries list' }],
    ]);
    expect((await as('root', 'POST', `/_webhooks/audit/deliveries/${String(dead['seq'])}/retry`)).status).toBe(200);
    await receiver.waitFor(() =>
      delivered().some((r) => r.type === 'Note.update' && r.pk === pk && r.object['text'] === 'doomed twice'),
    );
    const after = (await as('root', 'GET', '/_webhooks')).body.data as Rec[];
    expect(after[0]).toMatchObject({ dead: 0, last_error: null });
    // Delivered at its first attempt since the retry: the 2xx is its last status, the earlier error kept.
    const seq = String(dead['seq']);
    const done = (
      (await as('root', 'GET', '/_webhooks/audit/deliveries?status=delivered&_limit=1000')).body.data as Rec[]
    ).find((d) => String(d['seq']) === seq);
    expect(done).toMatchObject({ status: 'delivered', attempts: 1, last_status: 200, last_error: 'HTTP 503' });
    // A delivered event is sent again on demand (a receiver that lost it), as the same message.
    const sent = () =>
      delivered().filter((r) => r.type === 'Note.update' && r.pk === pk && r.object['text'] === 'doomed twice');
    const before = sent().length;
    expect((await as('root', 'POST', `/_webhooks/audit/deliveries/${seq}/retry`)).status).toBe(200);
    await receiver.waitFor(() => sent().length === before + 1);
    expect(new Set(sent().map((r) => r.id)).size).toBe(1);
  });

  it('delivers everything to a receiver that was down once it is back', async () => {
    const port = Number(new URL(receiver.url).port);
    await receiver.stop();
    const made: string[] = [];
    for (let i = 0; i < 5; i++)
      made.push(String(((await as('ann', 'POST', '/notes', { text: `while down ${i}` })).body as Rec)['id']));
    await sleep(300);
    await receiver.start(port);
    await receiver.waitFor(() => made.every((pk) => delivered().some((r) => r.pk === pk && r.type === 'Note.create')));
    expect(made.every((pk) => delivered().some((r) => r.pk === pk && r.signed))).toBe(true);
  });

  it('prunes delivered events after events.retention; a feed asking for pruned ones is told to reload', async () => {
    await receiver.waitFor(() => receiver.received.length > 0);
    await service.stop();
    await start({ SVC_EVENTS_RETENTION: '1ms' });
    await login('root');
    // The first turn of the delivery loop prunes; the newest event stays to number on from.
    let feed = await openFeed(`${service.origin}${BASE}/_events`, {
      cookie: cookies.get('root')!,
      'last-event-id': '1',
    });
    for (let i = 0; i < 100 && !feed.messages.some((m) => m.event === 'reset'); i++) {
      feed.close();
      await sleep(100);
      feed = await openFeed(`${service.origin}${BASE}/_events`, { cookie: cookies.get('root')!, 'last-event-id': '1' });
      await sleep(100);
    }
    expect(feed.messages[0]?.event).toBe('reset');
    feed.close();
    // A pruned event is sent again to no one: its delivery is gone too (404), or kept as it was (409).
    const again = await as('root', 'POST', '/_webhooks/audit/deliveries/1/retry');
    expect([404, 409], again.text).toContain(again.status);
    expect((await as('root', 'GET', '/_webhooks')).body.data[0]).toMatchObject({ dead: 0 });
  });
});
