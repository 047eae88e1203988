/**
 * The change feed `GET {base}/_events` (issue 26, item 4), on SQLite, PostgreSQL and the MongoDB
 * test server, with fixtures/library: a member is never sent an event about an object they may
 * not view (another member's private note; any book, for a banned member), anonymous callers see
 * what an anonymous GET would, fields are cut to what the caller may read, `?types=` filters, and
 * `Last-Event-ID` replays what followed it, then goes live, with no gap and no duplicate.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type Engine } from '../support/databases.js';
import { openFeed, type Feed, type FeedMessage } from '../support/feed.js';
import { libraryService, withLibraryFunctions } from '../support/library.js';
import { generatedProject } from '../support/project.js';

type Rec = Record<string, unknown>;

let dir: string;

beforeAll(async () => {
  dir = await generatedProject('library', 'e2e-change-feed');
  await withLibraryFunctions(dir);
}, 600_000);

const parsed = (m: FeedMessage) =>
  JSON.parse(m.data) as { seq: number; type: string; data: { pk: string; object: Rec } };

/**
 * A library service for the enclosing describe block, and `follow`: a feed of the caller's (`null`:
 * anonymous) with `query` and `headers`, closed when the block ends.
 */
function feedService(engine: Engine, label: string, env: Record<string, string>) {
  const library = libraryService(engine, label, env);
  const feeds: Feed[] = [];
  const follow = async (who: string | null, query = '', headers: Record<string, string> = {}) => {
    const feed = await openFeed(`${library.service.origin}/v1/_events${query}`, {
      ...(who ? { cookie: library.cookie(who) } : {}),
      ...headers,
    });
    feeds.push(feed);
    return feed;
  };

  beforeAll(() => library.start(dir), 120_000);

  afterAll(async () => {
    for (const feed of feeds) feed.close();
    await library.stop();
  });
  return { library, follow };
}

describe.each(ENGINES)('the change feed on %s', (engine) => {
  // A page on another origin follows the feed too (EventSource with credentials).
  const { library, follow } = feedService(engine, 'feed', {
    SVC_CORS_ENABLE: 'true',
    SVC_CORS_ALLOW_ORIGINS: 'https://app.example',
    SVC_CORS_ALLOW_CREDENTIALS: 'true',
  });
  const as = library.as;

  it('sends each caller only the events of objects they may view, with the fields they may read', async () => {
    const [annFeed, benFeed, olgaFeed, anonymousFeed, rootFeed] = (await Promise.all(
      ['ann', 'ben', 'olga', null, 'root'].map((who) => follow(who)),
    )) as [Feed, Feed, Feed, Feed, Feed];
    for (const feed of [annFeed, benFeed, olgaFeed, anonymousFeed, rootFeed]) expect(feed.status).toBe(200);
    const annNote = (await as('ann', 'POST', '/notes', { text: "ann's secret" })).body as Rec;
    const benNote = (await as('ben', 'POST', '/notes', { text: "ben's secret" })).body as Rec;
    const book = (await as('ann', 'POST', '/books', { title: 'Open book' })).body as Rec;
    expect((await as('ann', 'PATCH', `/users/ann`, { email: 'ann@example.org' })).status).toBe(200);
    // The last event of the batch: once a feed has it, it had its chance at every earlier one.
    const marker = (await as('root', 'POST', '/authors', { name: 'Marker' })).body as Rec;
    const sawMarker = (ms: readonly FeedMessage[]) => ms.some((m) => m.event === 'Author.create');
    await Promise.all([annFeed, benFeed, olgaFeed, anonymousFeed, rootFeed].map((f) => f.until(sawMarker)));
    const keys = (feed: Feed) => feed.messages.map((m) => `${m.event} ${parsed(m).data.pk}`);
    const note = (n: Rec) => `Note.create ${String(n['id'])}`;
    const bookCreated = `Book.create ${String(book['id'])}`;
    expect(keys(annFeed)).toContain(note(annNote));
    expect(keys(annFeed)).not.toContain(note(benNote));
    expect(keys(benFeed)).toContain(note(benNote));
    expect(keys(benFeed)).not.toContain(note(annNote));
    // A banned member sees no book; anonymous callers see books (everyone may view them), no note.
    expect(keys(olgaFeed)).not.toContain(bookCreated);
    expect(keys(olgaFeed).some((k) => k.startsWith('Note.'))).toBe(false);
    expect(keys(anonymousFeed)).toContain(bookCreated);
    expect(keys(anonymousFeed).some((k) => k.startsWith('Note.') || k.startsWith('User.'))).toBe(false);
    expect(keys(rootFeed)).toEqual(
      expect.arrayContaining([note(annNote), note(benNote), bookCreated, `Author.create ${String(marker['id'])}`]),
    );
    // Ann's change of her email: she and the admin see it; not ben, a member who may view users but
    // not their email (`_auth_fields`): it would tell him when hers changed.
    const annUpdate = (feed: Feed) =>
      feed.messages.map(parsed).find((e) => e.type === 'User.update' && e.data.pk === 'ann');
    expect(annUpdate(annFeed)?.data.object['email']).toBe('ann@example.org');
    expect(annUpdate(rootFeed)?.data.object).not.toHaveProperty('password');
    expect(annUpdate(benFeed)).toBeUndefined();
    // Ids are seqs, increasing.
    const ids = rootFeed.messages.map((m) => Number(m.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it("replays an object's events only to callers who may view it then and now: a note given away takes its history along", async () => {
    const live = await follow('root');
    const note = (await as('ann', 'POST', '/notes', { text: 'given away' })).body as Rec;
    const pk = String(note['id']);
    const isCreate = (m: FeedMessage) => m.event === 'Note.create' && parsed(m).data.pk === pk;
    await live.until((ms) => ms.some(isCreate));
    const created = Number(live.messages.find(isCreate)!.id);
    expect((await as('root', 'PATCH', `/notes/${pk}`, { owner: 'ben' })).status).toBe(200);
    /** Ann's and ben's feeds replayed from before the note, once each has an author made after all of it. */
    const replays = async (marker: string): Promise<[Feed, Feed]> => {
      const author = (await as('root', 'POST', '/authors', { name: marker })).body as Rec;
      const saw = (ms: readonly FeedMessage[]) =>
        ms.some((m) => m.event === 'Author.create' && parsed(m).data.pk === String(author['id']));
      const feeds = (await Promise.all(
        ['ann', 'ben'].map((who) => follow(who, '', { 'last-event-id': String(created - 1) })),
      )) as [Feed, Feed];
      await Promise.all(feeds.map((f) => f.until(saw)));
      return feeds;
    };
    const [annFeed, benFeed] = await replays('After the gift');
    const ofNote = (feed: Feed) =>
      feed.messages.filter((m) => m.event.startsWith('Note.') && parsed(m).data.pk === pk).map((m) => m.event);
    // Ann no longer may view it: none of its events. Ben may now, but not as it was when it was ann's.
    expect(ofNote(annFeed)).toEqual([]);
    expect(ofNote(benFeed)).toEqual(['Note.update']);
    // Deleted, it is judged by nothing but its deletion: its past does not come back to ann.
    expect((await as('root', 'DELETE', `/notes/${pk}`)).status).toBe(200);
    const [annAgain, benAgain] = await replays('After the deletion');
    expect(ofNote(annAgain)).toEqual([]);
    expect(ofNote(benAgain)).toEqual(['Note.delete']);
  });

  it("does not send a user who takes a deleted user's name that user's past as their own", async () => {
    const live = await follow('root');
    const register = async (email: string) => {
      const reply = await as(null, 'POST', '/auth/register', { username: 'carl', email, password: 'password-123' });
      expect(reply.status, reply.text).toBe(201);
      return /auth_tkt=[^;]*/.exec(reply.headers.get('set-cookie') ?? '')![0];
    };
    const first = await register('carl-first@example.com');
    const registered = (ms: readonly FeedMessage[]) =>
      ms.filter((m) => m.event === 'User.register' && parsed(m).data.pk === 'carl');
    await live.until((ms) => registered(ms).length === 1);
    const before = Number(registered(live.messages)[0]!.id) - 1;
    const patched = await fetch(`${library.service.origin}/v1/users/carl`, {
      method: 'PATCH',
      headers: { cookie: first, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'carl-private@example.com' }),
    });
    expect(patched.status).toBe(200);
    expect((await as('root', 'DELETE', '/users/carl')).status).toBe(200);
    // Only an admin gives the name to an account again (objects may still name carl).
    const refused = await as(null, 'POST', '/auth/register', {
      username: 'carl',
      email: 'carl-second@example.com',
      password: 'password-123',
    });
    expect(refused.status, refused.text).toBe(409);
    const made = await as('root', 'POST', '/users', {
      username: 'carl',
      email: 'carl-second@example.com',
      password: 'password-123',
    });
    expect(made.status, made.text).toBe(201);
    const login = await as(null, 'POST', '/auth/login', { login: 'carl', password: 'password-123' });
    expect(login.status, login.text).toBe(200);
    const second = /auth_tkt=[^;]*/.exec(login.headers.get('set-cookie') ?? '')![0];
    const marker = (await as('root', 'POST', '/authors', { name: 'After carl came back' })).body as Rec;
    const sawMarker = (ms: readonly FeedMessage[]) =>
      ms.some((m) => m.event === 'Author.create' && parsed(m).data.pk === String(marker['id']));
    const [carlFeed, benFeed] = await Promise.all([
      follow(null, '', { cookie: second, 'last-event-id': String(before) }),
      follow('ben', '', { 'last-event-id': String(before) }),
    ]);
    await Promise.all([carlFeed, benFeed].map((f) => f.until(sawMarker)));
    const ofCarl = (feed: Feed) =>
      feed.messages.filter((m) => m.event.startsWith('User.') && parsed(m).data.pk === 'carl').map(parsed);
    const events = ofCarl(carlFeed);
    // Not the first carl's change of his email, which no other member may read.
    expect(events.map((e) => e.type)).toEqual(['User.register', 'User.delete', 'User.create']);
    // The first carl's past, as any member sees it (ben): none of that carl's own fields.
    expect(events.slice(0, 2)).toEqual(ofCarl(benFeed).slice(0, 2));
    expect(JSON.stringify(events.slice(0, 2))).not.toMatch(/carl-(first|private)/);
    // Their own making, as their own record.
    expect(events[2]!.data.object['email']).toBe('carl-second@example.com');
  });

  it("sends no member another user's changes of what they may not read: an email, groups, a password", async () => {
    const [benFeed, rootFeed] = (await Promise.all(['ben', 'root'].map((who) => follow(who)))) as [Feed, Feed];
    const registered = await as(null, 'POST', '/auth/register', {
      username: 'dana',
      email: 'dana@example.com',
      password: 'password-123',
    });
    expect(registered.status, registered.text).toBe(201);
    const cookie = /auth_tkt=[^;]*/.exec(registered.headers.get('set-cookie') ?? '')![0];
    const own = (body: Rec) =>
      fetch(`${library.service.origin}/v1/users/dana`, {
        method: 'PATCH',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await own({ email: 'dana@example.org' })).status).toBe(200);
    expect((await as('root', 'PATCH', '/users/dana', { groups: ['user', 'editor'] })).status).toBe(200);
    expect((await own({ password: 'password-456', current_password: 'password-123' })).status).toBe(200);
    const marker = (await as('root', 'POST', '/authors', { name: 'After dana' })).body as Rec;
    const sawMarker = (ms: readonly FeedMessage[]) =>
      ms.some((m) => m.event === 'Author.create' && parsed(m).data.pk === String(marker['id']));
    await Promise.all([benFeed, rootFeed].map((f) => f.until(sawMarker)));
    const updates = (feed: Feed) =>
      feed.messages
        .map(parsed)
        .filter((e) => e.type === 'User.update' && e.data.pk === 'dana')
        .map((e) => (e.data as { changed?: string[] }).changed);
    expect(updates(benFeed)).toEqual([]);
    // The admin reads both fields; a password is in no event, so its change is news to no one.
    expect(updates(rootFeed)).toEqual([['email'], ['groups']]);
  });

  it("ends an open feed at its caller's logout, and sends a demoted caller only what they may view now", async () => {
    const member = async (name: string) => {
      const reply = await as(null, 'POST', '/auth/register', {
        username: name,
        email: `${name}@example.com`,
        password: 'password-123',
      });
      expect(reply.status, reply.text).toBe(201);
      return /auth_tkt=[^;]*/.exec(reply.headers.get('set-cookie') ?? '')![0];
    };
    const leaving = await member('leaving');
    const demoted = await member('demoted');
    expect((await as('root', 'PATCH', '/users/demoted', { groups: ['user', 'admin'] })).status).toBe(200);
    const [leavingFeed, demotedFeed] = (await Promise.all(
      [leaving, demoted].map((cookie) => follow(null, '', { cookie })),
    )) as [Feed, Feed];
    const first = (await as('ann', 'POST', '/notes', { text: 'seen by an admin' })).body as Rec;
    const sawFirst = (ms: readonly FeedMessage[]) => ms.some((m) => parsed(m).data.pk === String(first['id']));
    await demotedFeed.until(sawFirst);
    // The logout and the demotion, then a private note of ann's: neither may see it now.
    const logout = await fetch(`${library.service.origin}/v1/auth/logout`, {
      method: 'POST',
      headers: { cookie: leaving },
    });
    expect(logout.status).toBe(200);
    expect((await as('root', 'PATCH', '/users/demoted', { groups: ['user'] })).status).toBe(200);
    const second = (await as('ann', 'POST', '/notes', { text: 'after the demotion' })).body as Rec;
    const marker = (await as('root', 'POST', '/authors', { name: 'After the logout' })).body as Rec;
    const sawMarker = (ms: readonly FeedMessage[]) =>
      ms.some((m) => m.event === 'Author.create' && parsed(m).data.pk === String(marker['id']));
    await demotedFeed.until(sawMarker);
    expect(
      demotedFeed.messages.some((m) => parsed(m).data.pk === String(second['id']) && m.event === 'Note.create'),
    ).toBe(false);
    const waited = Date.now() + 5_000;
    while (!leavingFeed.comments.some((c) => c.startsWith('your session ended')) && Date.now() < waited)
      await sleep(50);
    expect(leavingFeed.comments).toContainEqual(expect.stringMatching(/^your session ended/));
    expect(
      leavingFeed.messages.some((m) => m.event === 'Author.create' && parsed(m).data.pk === String(marker['id'])),
    ).toBe(false);
  });

  it('answers a page of an allowed origin as CORS says, the stream being no ordinary answer', async () => {
    const feed = await follow('ann', '', { origin: 'https://app.example' });
    expect(feed.status).toBe(200);
    expect(feed.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(feed.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(feed.headers['access-control-allow-credentials']).toBe('true');
    expect(feed.headers['x-content-type-options']).toBe('nosniff');
    const other = await follow('ann', '', { origin: 'https://evil.example' });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers HEAD with the headers of the stream, and ends', async () => {
    const head = await fetch(`${library.service.origin}/v1/_events`, {
      method: 'HEAD',
      headers: { cookie: library.cookie('ann') },
      signal: AbortSignal.timeout(5_000),
    });
    expect([head.status, head.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8']);
  });

  it('filters by ?types=', async () => {
    const feed = await follow('root', '?types=Book.*');
    await as('ann', 'POST', '/notes', { text: 'not a book' });
    await as('ann', 'POST', '/books', { title: 'A book' });
    await feed.until((ms) => ms.length >= 1);
    await as('root', 'POST', '/books', { title: 'Another book' });
    await feed.until((ms) => ms.length >= 2);
    expect(feed.messages.every((m) => m.event.startsWith('Book.'))).toBe(true);
    expect((await as('root', 'GET', '/_events?types=no such thing')).status).toBe(400);
    // A type no event can have, or a parameter the feed does not take, would be a feed that never
    // sends what was asked for: each is a 400 naming it.
    for (const [query, field, message] of [
      ['types=Secret.*', 'types', 'names no model of this service (its models: Author, Book, Note, User)'],
      ['types=Boook.*', 'types', 'names no model of this service (did you mean `Book`?)'],
      ['types=Book.created', 'types', 'names no action (did you mean `create`?)'],
      ['types=Book.write', 'types', 'names no action (create, update, replace, delete)'],
      ['types=Book.register', 'types', 'names no event: users register as User, not Book'],
      ['types=Book.*&owner=ann', 'owner', 'is not a parameter of the change feed'],
    ]) {
      const refused = await as('root', 'GET', `/_events?${query}`);
      expect([refused.status, refused.body.errors], query).toEqual([400, [{ field, message }]]);
    }
  });

  it('replays what followed Last-Event-ID, then goes live, with no gap and no duplicate', async () => {
    const live = await follow('root');
    const first = (await as('ann', 'POST', '/notes', { text: 'replay 0' })).body as Rec;
    await live.until((ms) => ms.some((m) => parsed(m).data.pk === String(first['id']) && m.event === 'Note.create'));
    const from = live.messages.find((m) => parsed(m).data.pk === String(first['id']) && m.event === 'Note.create')!.id!;
    live.close();
    // Written while nobody follows.
    const missed: string[] = [];
    for (let i = 1; i <= 5; i++)
      missed.push(String(((await as('ann', 'POST', '/notes', { text: `replay ${i}` })).body as Rec)['id']));
    const resumed = await follow('root', '', { 'last-event-id': from });
    const during = (async () => {
      for (let i = 6; i <= 10; i++)
        missed.push(String(((await as('ann', 'POST', '/notes', { text: `replay ${i}` })).body as Rec)['id']));
    })();
    await during;
    await resumed.until((ms) =>
      missed.every((pk) => ms.some((m) => m.event === 'Note.create' && parsed(m).data.pk === pk)),
    );
    const seqs = resumed.messages.map((m) => Number(m.id));
    expect(seqs[0]).toBe(Number(from) + 1);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    // The same through ?last_event_id=, for clients that cannot set the header.
    const byQuery = await follow('root', `?last_event_id=${from}`);
    await byQuery.until((ms) => ms.length >= 10);
    expect(Number(byQuery.messages[0]!.id)).toBe(Number(from) + 1);
    expect((await as('root', 'GET', '/_events?last_event_id=abc')).status).toBe(400);
  });

  it('tells a client whose Last-Event-ID is newer than any event to reload, saying why, and follows on', async () => {
    const now = await follow('root');
    const made = (await as('ann', 'POST', '/notes', { text: 'before the future' })).body as Rec;
    await now.until((ms) => ms.some((m) => m.event === 'Note.create' && parsed(m).data.pk === String(made['id'])));
    const newest = now.messages.at(-1)!.id!;
    const ahead = await follow('root', '', { 'last-event-id': String(Number(newest) + 1000) });
    await ahead.until((ms) => ms.length > 0);
    expect([ahead.messages[0]!.event, ahead.messages[0]!.id]).toEqual(['reset', newest]);
    expect(JSON.parse(ahead.messages[0]!.data).reason).toMatch(
      new RegExp(`^Last-Event-ID ${Number(newest) + 1000} is newer than any event here \\(the newest is ${newest}\\)`),
    );
    const next = (await as('ann', 'POST', '/notes', { text: 'after the future' })).body as Rec;
    await ahead.until((ms) => ms.some((m) => m.event === 'Note.create' && parsed(m).data.pk === String(next['id'])));
  });

  it("answers other requests while a feed replays a long past: the replay takes turns (SQLite's reads never wait)", async () => {
    // On SQLite a replay awaited only reads answered at once: a probe's anonymous feeds of a week of
    // events kept /health waiting 45 s. A member's replay of one page (500 events, each judged by
    // the x-ACLs) held every other request until the whole page was judged and sent.
    const before = await follow('ann');
    const marker = (await as('root', 'POST', '/authors', { name: 'Before the past' })).body as Rec;
    await before.until((ms) =>
      ms.some((m) => m.event === 'Author.create' && parsed(m).data.pk === String(marker['id'])),
    );
    const from = before.messages.at(-1)!.id!;
    before.close();
    // Three pages: a replay longer than the time this test's own process, on a loaded machine,
    // takes to ask for /health once the feed is open (with one page, CI's run lost that race).
    const count = 1500;
    for (let i = 0; i < count; i += 50)
      await Promise.all(
        Array.from({ length: 50 }, (_, j) => as('root', 'POST', '/authors', { name: `Past ${i + j}` })),
      );
    const replay = await follow('ann', `?last_event_id=${from}`);
    const health = await library.as(null, 'GET', '/health');
    const sentBeforeHealth = replay.messages.length;
    expect(health.status).toBe(200);
    await replay.until((ms) => ms.length >= count);
    // Answered while the replay was under way, not once it was done.
    expect(sentBeforeHealth).toBeLessThan(count);
  });

  it('ends open feeds when the service shuts down, with a last word, and exits cleanly', async () => {
    const feed = await follow('root');
    await feed.until(() => true);
    // A feed left open would hold the shutdown until its drain timeout, then exit 1.
    expect(await library.service.stop('SIGTERM')).toBe(0);
    for (let i = 0; i < 100 && !feed.comments.some((c) => c.includes('shutting down')); i++) await sleep(20);
    expect(feed.comments.some((c) => c.includes('shutting down'))).toBe(true);
  });
});

// Limits kept in the service's memory, alike on every engine: SQLite's is enough to show them.
describe('how many change feeds one client may keep open', () => {
  const { library, follow } = feedService('sqlite', 'feed-limits', {
    SVC_FEED_MAX_PER_USER: '2',
    SVC_FEED_MAX_PER_ADDRESS: '3',
  });

  it('answers 429 to one feed more than a user or an address may keep open, until one of them closes', async () => {
    const [first, second] = [await follow('ann'), await follow('ann')];
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await fetch(`${library.service.origin}/v1/_events`, { headers: { cookie: library.cookie('ann') } });
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('5');
    expect(((await third.json()) as Rec)['message']).toMatch(/^you already have 2 change feeds open/);
    // HEAD opens no feed, and is not refused.
    const head = await fetch(`${library.service.origin}/v1/_events`, {
      method: 'HEAD',
      headers: { cookie: library.cookie('ann') },
    });
    expect(head.status).toBe(200);
    // Ben may open one; then the address (every test client is 127.0.0.1) has its three.
    expect((await follow('ben')).status).toBe(200);
    const anonymous = await fetch(`${library.service.origin}/v1/_events`);
    expect(anonymous.status).toBe(429);
    expect(((await anonymous.json()) as Rec)['message']).toMatch(/^your address already has 3 change feeds open/);
    // A feed closed by its client is a place free again, for that user and that address.
    first.close();
    const deadline = Date.now() + 5_000;
    let again = await follow('ann');
    while (again.status === 429 && Date.now() < deadline) {
      await sleep(50);
      again = await follow('ann');
    }
    expect(again.status).toBe(200);
    // Refusals took no place: still exactly full.
    expect((await fetch(`${library.service.origin}/v1/_events`)).status).toBe(429);
  });
});
