/**
 * What a member may see, move and take, on every engine, with fixtures/library: members share a
 * catalogue of authors, own the books and private notes they add (the `{{owner}}` principal, with
 * a `where`), and a banned member may view no book (`deny g:banned view`).
 *
 * - Lists, counts and searches leave out what the item rules refuse: a banned member lists no book,
 *   and a member lists only their own notes, with `total` exact (issue 34, item 6). Without the
 *   principal's `where` the notes list shows what the collection rules allow, as Ramses did.
 * - Writing a relationship moves the foreign keys of the objects it adds and drops: a member may
 *   do it only with books they may update, whether they create an author, change one, change
 *   several at once, or create a book under one (item 1).
 * - A book embeds its author, and the author embedded in every book of a page carries no list of
 *   its thousands of books: a page is bounded by its page size (item 5).
 * - A book embeds its owner too, and the `{{owner}}` principal still gets the owner's key, as the
 *   Book type says: its owner may change it, and no one else.
 * - A link kept in the written object's own row (a note's book, the note it answers, the book it
 *   is featured in) goes only to an object the caller may view: another is answered as a key that
 *   names nothing. A one-to-one link takes the target's only partner, so it needs `update` on it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../support/databases.js';
import { libraryService, MEMBER_PASSWORD, OWNER_WITHOUT_WHERE, withLibraryFunctions } from '../support/library.js';
import { generatedProject } from '../support/project.js';

/** The books of the prolific author: enough that carrying their keys in every embedded copy shows. */
const PROLIFIC = 300;

type Rec = Record<string, unknown>;

/** A related object's key, whether the answer embeds the object or shows its key. */
const keyOf = (value: unknown, key: string): unknown =>
  value !== null && typeof value === 'object' ? (value as Rec)[key] : value;

let dir: string;

beforeAll(async () => {
  dir = await generatedProject('library', 'e2e-library');
  await withLibraryFunctions(dir);
}, 600_000);

describe.each(ENGINES)('the library on %s', (engine) => {
  const library = libraryService(engine, 'library');
  const { as, start, stop } = library;
  let annBook: Rec;
  let benBook: Rec;
  let catalogue: Rec;

  /** The owner of each book, read as an admin. */
  const owners = async (): Promise<Record<string, unknown>> =>
    Object.fromEntries(
      ((await as('root', 'GET', '/books?_limit=1000&_sort=id')).body.data as Rec[]).map((b) => [
        b['title'],
        keyOf(b['owner'], 'username'),
      ]),
    );
  /** The key of a book's author (embedded in the book's answer), or null. */
  const authorOf = async (book: Rec) =>
    (((await as('root', 'GET', `/books/${String(book['id'])}`)).body as Rec)['author'] as Rec | null)?.['id'] ?? null;

  beforeAll(async () => {
    await start(dir);
    catalogue = (await as('ann', 'POST', '/authors', { name: 'Catalogue' })).body;
    annBook = (await as('ann', 'POST', '/books', { title: "ann's book", summary: 'a tale of tangerines' })).body;
    benBook = (await as('ben', 'POST', '/books', { title: "ben's book", summary: 'a tale of tangerines' })).body;
    // The owner is embedded (`_nested_relationships`).
    expect([annBook['owner'], benBook['owner']]).toMatchObject([
      { username: 'ann', _type: 'User' },
      { username: 'ben', _type: 'User' },
    ]);
    for (const [who, text] of [
      ['ann', 'ann remembers tangerines'],
      ['ann', 'ann again'],
      ['ben', 'ben remembers tangerines'],
    ] as const)
      expect((await as(who, 'POST', '/notes', { text })).status).toBe(201);
  }, 120_000);

  afterAll(stop);

  describe('lists under item rules', () => {
    it('shows a banned member no book: not in a page, the total, a count or a search, as the item refuses it', async () => {
      expect((await as('olga', 'GET', `/books/${String(annBook['id'])}`)).status).toBe(403);
      const page = await as('olga', 'GET', '/books');
      expect([page.status, page.body.total, page.body.data]).toEqual([200, 0, []]);
      expect((await as('olga', 'GET', '/books?_count')).body).toEqual({ count: 0 });
      expect((await as('olga', 'GET', '/books?q=tangerines')).body.total).toBe(0);
      // Nested under an author, too.
      expect((await as('olga', 'GET', `/authors/${String(catalogue['id'])}/books`)).body.total).toBe(0);
      // Other members see them all.
      expect((await as('ben', 'GET', '/books?q=tangerines')).body.total).toBe(2);
    });

    it("lists a member's own notes only, with an exact total, count and search", async () => {
      const notes = await as('ann', 'GET', '/notes?_limit=1');
      expect([notes.body.total, notes.body.count]).toEqual([2, 1]);
      expect((await as('ann', 'GET', '/notes?_count')).body).toEqual({ count: 2 });
      const found = await as('ann', 'GET', '/notes?q=tangerines');
      expect(found.body.data.map((n: Rec) => n['text'])).toEqual(['ann remembers tangerines']);
      expect((await as('ben', 'GET', '/notes')).body.total).toBe(1);
      // A filter that names someone else's notes finds none of them.
      expect((await as('ann', 'GET', '/notes?owner=ben')).body.total).toBe(0);
      expect((await as('root', 'GET', '/notes')).body.total).toBe(3);
    });

    it("pages a member's notes by next links (_after) without reaching anyone else's, even with a forged cursor", async () => {
      const seen: unknown[] = [];
      let page = await as('ann', 'GET', '/notes?_limit=1&_sort=text');
      for (;;) {
        expect(page.status, page.text).toBe(200);
        seen.push(...page.body.data.map((n: Rec) => n['text']));
        if (!page.body.next) break;
        page = await as(
          'ann',
          'GET',
          new URL(page.body.next as string).pathname.replace(/^\/v1/, '') + new URL(page.body.next as string).search,
        );
      }
      expect(seen).toEqual(['ann again', 'ann remembers tangerines']);
      // A cursor that starts before everything: still only ann's own notes.
      const forged = Buffer.from(JSON.stringify(['text', 0, '', 0])).toString('base64url');
      const all = await as('ann', 'GET', `/notes?_sort=text&_after=${forged}`);
      expect(all.body.data.map((n: Rec) => n['text'])).toEqual(['ann again', 'ann remembers tangerines']);
      // The banned member walks nothing.
      expect(
        (
          await as(
            'olga',
            'GET',
            `/books?_sort=title&_after=${Buffer.from(JSON.stringify(['title', 0, '', 0])).toString('base64url')}`,
          )
        ).body.data,
      ).toEqual([]);
    });
  });

  describe('relationship writes', () => {
    it("refuses an author created with another member's book, and creates nothing", async () => {
      const before = await as('root', 'GET', '/authors?_count');
      const created = await as('ann', 'POST', '/authors', { name: 'Taker', books: [benBook['id']] });
      expect(created.status, created.text).toBe(403);
      expect(created.body.errors).toEqual([
        { field: 'books', message: expect.stringContaining(`Book ${String(benBook['id'])}`) },
      ]);
      expect((await as('root', 'GET', '/authors?_count')).body).toEqual(before.body);
      expect(await authorOf(benBook)).toBeNull();
      // With her own book, it is hers to link.
      const own = await as('ann', 'POST', '/authors', { name: 'Ann Writer', books: [annBook['id']] });
      expect(own.status, own.text).toBe(201);
      expect(await authorOf(annBook)).toBe(own.body['id']);
    });

    it("refuses a PATCH, a PUT and a bulk PATCH of authors that would link or unlink another member's book", async () => {
      const taker = (await as('ben', 'POST', '/authors', { name: 'Shared', books: [benBook['id']] })).body;
      expect(await authorOf(benBook)).toBe(taker['id']);
      // ann may edit the shared author, but not move ben's book: neither take it nor drop it.
      expect((await as('ann', 'PATCH', `/authors/${String(taker['id'])}`, { books: [annBook['id']] })).status).toBe(
        403,
      );
      expect((await as('ann', 'PATCH', `/authors/${String(taker['id'])}`, { books: [] })).status).toBe(403);
      const put = (body: Record<string, unknown>) => as('ann', 'PUT', `/authors/${String(taker['id'])}`, body);
      expect((await put({ name: 'Shared', books: [] })).status).toBe(403);
      // A PUT leaves a link kept in the books' rows as it is when it leaves it out.
      expect((await put({ name: 'Shared' })).status).toBe(200);
      expect((await as('ann', 'PATCH', `/authors?name=Catalogue`, { books: [benBook['id']] })).status).toBe(403);
      expect(await authorOf(benBook)).toBe(taker['id']);
      // What she may write of the author goes through.
      expect((await as('ann', 'PATCH', `/authors/${String(taker['id'])}`, { name: 'Shared, renamed' })).status).toBe(
        200,
      );
      // An admin re-links freely.
      expect(
        (await as('root', 'PATCH', `/authors/${String(catalogue['id'])}`, { books: [benBook['id']] })).status,
      ).toBe(200);
      expect(await authorOf(benBook)).toBe(catalogue['id']);
    });

    it("refuses taking another member's books as one's own, through the user's own record", async () => {
      const before = await owners();
      const taken = await as('ann', 'PATCH', '/users/ann', { books: [annBook['id'], benBook['id']] });
      expect(taken.status, taken.text).toBe(403);
      expect(await owners()).toEqual(before);
      // Dropping one's own book is one's own business.
      expect((await as('ben', 'PATCH', '/users/ben', { books: [benBook['id']] })).status).toBe(200);
    });

    it('creates a book under an author, linked to it and owned by its creator', async () => {
      const nested = await as('ben', 'POST', `/authors/${String(catalogue['id'])}/books`, { title: 'nested' });
      expect(nested.status, nested.text).toBe(201);
      expect([nested.body['owner']?.['username'], nested.body['author']?.['id']]).toEqual(['ben', catalogue['id']]);
    });
  });

  describe('principals get the object as its type says', () => {
    it('lets the owner of a book change it, with the owner embedded in its answer, and no one else', async () => {
      const path = `/books/${String(annBook['id'])}`;
      const read = await as('ann', 'GET', path);
      expect([read.status, read.body['owner']?.['username']]).toEqual([200, 'ann']);
      const changed = await as('ann', 'PATCH', path, { summary: 'a tale of tangerines, revised' });
      expect(changed.status, changed.text).toBe(200);
      expect((await as('ann', 'DELETE', `/books/${String(benBook['id'])}`)).status).toBe(403);
      expect((await as('ben', 'PATCH', path, { summary: 'taken' })).status).toBe(403);
    });
  });

  describe('a read-only link (a note\'s owner: `"readOnly": true` on its foreign key)', () => {
    /** The owner of note `id`, read as an admin. */
    const ownerOf = async (id: unknown) =>
      keyOf((await as('root', 'GET', `/notes/${String(id)}`)).body['owner'], 'username');

    it('is set by the service on create: a member who names another owner is refused, and writes nothing', async () => {
      const count = async () => (await as('root', 'GET', '/notes?_count')).body;
      const before = await count();
      const given = await as('ann', 'POST', '/notes', { text: 'framed', owner: 'ben' });
      expect(given.status, given.text).toBe(403);
      expect(given.body.errors).toEqual([{ field: 'owner', message: expect.stringContaining('read-only') }]);
      expect(await count()).toEqual(before);
      const own = await as('ann', 'POST', '/notes', { text: 'mine' });
      expect([own.status, keyOf(own.body['owner'], 'username')]).toEqual([201, 'ann']);
    });

    it('cannot be moved by a member from either side, in a PATCH of the note or of her own record, one or in bulk; an admin moves it', async () => {
      const mine = (await as('ann', 'POST', '/notes', { text: 'kept' })).body as Rec;
      const bens = (await as('ben', 'POST', '/notes', { text: "ben's" })).body as Rec;
      const path = `/notes/${String(mine['id'])}`;
      for (const [method, url, body] of [
        ['PATCH', path, { owner: 'ben' }],
        ['PATCH', '/users/ann', { notes: [mine['id'], bens['id']] }],
        ['PATCH', '/users/ann', { notes: [] }],
        ['PATCH', '/users?username=ann', { notes: [] }],
      ] as const) {
        const refused = await as('ann', method, url, body);
        expect(refused.status, `${method} ${url} ${refused.text}`).toBe(403);
      }
      expect([await ownerOf(mine['id']), await ownerOf(bens['id'])]).toEqual(['ann', 'ben']);
      // What she may write of her note still goes through.
      expect((await as('ann', 'PATCH', path, { text: 'kept, edited' })).status).toBe(200);
      expect(await ownerOf(mine['id'])).toBe('ann');
      expect((await as('root', 'PATCH', path, { owner: 'ben' })).status).toBe(200);
      expect(await ownerOf(mine['id'])).toBe('ben');
    });

    it('is said so in the OpenAPI document', async () => {
      const document = (await as('root', 'GET', '/openapi.json')).body;
      const create = document.components.schemas.NoteCreate.properties.owner;
      expect(create.description).toContain('Read-only: only admins may send it');
    });
  });

  describe('links to what the caller may not see or change', () => {
    /** A note of `who`'s, as they create it. */
    const note = async (who: string, body: Rec) => {
      const created = await as(who, 'POST', '/notes', body);
      expect(created.status, created.text).toBe(201);
      return created.body as Rec;
    };
    /** The answer to a link to `key`, with the key taken out: the same for a key that names nothing. */
    const shape = (reply: { status: number; body: Rec }, key: unknown) =>
      JSON.stringify([reply.status, reply.body['message'], reply.body['errors']]).replaceAll(String(key), '<key>');

    it('answers a link to a book the caller may not view as one to a book that does not exist, and writes nothing', async () => {
      const before = (await as('root', 'GET', '/notes?_count')).body;
      const hidden = await as('olga', 'POST', '/notes', { text: 'about ann', book: annBook['id'] });
      const missing = await as('olga', 'POST', '/notes', { text: 'about nothing', book: 999_999 });
      expect(hidden.status, hidden.text).toBe(400);
      expect(shape(hidden, annBook['id'])).toBe(shape(missing, 999_999));
      // Nested under the book, the book is the URL's: a 404, as for a book that does not exist.
      const nested = await as('olga', 'POST', `/books/${String(annBook['id'])}/notes`, { text: 'under ann' });
      const nowhere = await as('olga', 'POST', '/books/999999/notes', { text: 'under nothing' });
      expect(nested.status, nested.text).toBe(404);
      expect(shape(nested, annBook['id'])).toBe(shape(nowhere, 999_999));
      expect((await as('root', 'GET', '/notes?_count')).body).toEqual(before);
      // A member who may view the book links to it, in the body or under it.
      const about = await note('ben', { text: 'about ann', book: annBook['id'] });
      expect(about['book']).toBe(annBook['id']);
      const under = await as('ben', 'POST', `/books/${String(annBook['id'])}/notes`, { text: 'under ann' });
      expect([under.status, under.body['book']]).toEqual([201, annBook['id']]);
    });

    it("refuses a reply to another member's private note, by POST and by PATCH, as a reply to no note", async () => {
      const bens = await note('ben', { text: 'ben, privately' });
      const own = await note('ann', { text: 'ann, privately' });
      const reply = await as('ann', 'POST', '/notes', { text: 'ann answers', reply_to: bens['id'] });
      const nowhere = await as('ann', 'POST', '/notes', { text: 'ann answers', reply_to: 999_999 });
      expect(reply.status, reply.text).toBe(400);
      expect(shape(reply, bens['id'])).toBe(shape(nowhere, 999_999));
      const moved = await as('ann', 'PATCH', `/notes/${String(own['id'])}`, { reply_to: bens['id'] });
      expect(moved.status, moved.text).toBe(400);
      expect((await as('root', 'GET', `/notes/${String(bens['id'])}`)).body['replies']).toEqual([]);
      // Her own note she may answer; a link she already has is no new link.
      const answer = await note('ann', { text: 'ann answers herself', reply_to: own['id'] });
      expect((await as('ann', 'PATCH', `/notes/${String(answer['id'])}`, { reply_to: own['id'] })).status).toBe(200);
    });

    it("answers a link from the other side to a note the caller may not view (a book's notes) as one to no note, and a registration's alike", async () => {
      const bens = await note('ben', { text: 'ben, hidden' });
      /** The answer, as a link to a note that does not exist gets it. */
      const asMissing = (key: unknown) => [
        400,
        `notes: Note ${String(key)} not found`,
        [{ field: 'notes', message: `Note ${String(key)} not found` }],
      ];
      const answer = (reply: { status: number; body: Rec }) => [
        reply.status,
        reply.body['message'],
        reply.body['errors'],
      ];
      // A book of her own with no notes: none of those others linked to her first book is unlinked.
      const fresh = (await as('ann', 'POST', '/books', { title: "ann's second book" })).body as Rec;
      const book = `/books/${String(fresh['id'])}`;
      expect(answer(await as('ann', 'PATCH', book, { notes: [bens['id']] }))).toEqual(asMissing(bens['id']));
      expect(answer(await as('ann', 'PATCH', book, { notes: [999_999] }))).toEqual(asMissing(999_999));
      // Anonymous, at registration: the same answer for a note that exists and one that does not (a
      // note's owner is read-only, so both are refused as such, before any note is looked for).
      const register = (username: string, key: unknown) =>
        as(null, 'POST', '/auth/register', {
          username,
          email: `${username}@example.com`,
          password: 'password-123',
          notes: [key],
        });
      const refusedAsReadOnly = [
        403,
        'a new user cannot set notes',
        [{ field: 'notes', message: expect.stringContaining('read-only') }],
      ];
      expect(answer(await register('eve1', bens['id']))).toEqual(refusedAsReadOnly);
      expect(answer(await register('eve2', 999_999))).toEqual(refusedAsReadOnly);
      expect((await as('root', 'GET', `/notes/${String(bens['id'])}`)).body['book']).toBeNull();
    });

    it("refuses to feature a note in another member's book (a one-to-one link takes its only slot), and lets its owner do it", async () => {
      const featured = await as('ann', 'POST', '/notes', { text: 'featured?', featured_in: benBook['id'] });
      expect(featured.status, featured.text).toBe(403);
      expect(featured.body.errors).toEqual([
        { field: 'featured_in', message: expect.stringContaining(`Book ${String(benBook['id'])}`) },
      ]);
      expect((await as('root', 'GET', `/books/${String(benBook['id'])}`)).body['featured_note']).toBeNull();
      const own = await note('ann', { text: 'featured', featured_in: annBook['id'] });
      expect((await as('root', 'GET', `/books/${String(annBook['id'])}`)).body['featured_note']).toBe(own['id']);
      // Ben's book stays his to replace whole: nothing of anyone else's is linked to it.
      const put = await as('ben', 'PUT', `/books/${String(benBook['id'])}`, {
        title: "ben's book",
        owner: 'ben',
        author: catalogue['id'],
      });
      expect(put.status, put.text).toBe(200);
    });
  });

  describe('bulk changes select what a GET with the same query lists', () => {
    it('selects no book a banned member may not view: a filter on their text reads the same whether it matches or not', async () => {
      const titles = async () =>
        (await as('root', 'GET', '/books?_limit=1000&_sort=id')).body.data.map((b: Rec) => b['summary']);
      const before = await titles();
      for (const filter of ['title__startswith=ann', 'title__startswith=zzz', 'q=tangerines', 'q=nothingatall']) {
        const reply = await as('olga', 'PATCH', `/books?${filter}`, { summary: 'taken' });
        expect([reply.status, reply.body['count']], filter).toEqual([200, 0]);
      }
      expect(await titles()).toEqual(before);
      // A member who may view them is still refused what they may not change.
      expect((await as('ben', 'PATCH', '/books?title__startswith=ann', { summary: 'taken' })).status).toBe(403);
    });
  });

  describe("a member's writes of their own record, one object or several", () => {
    it('lets a member write the same fields of themselves by a bulk PATCH as by their own PATCH, and never groups', async () => {
      // email is not in the users' _auth_fields: a member reads and writes it only on their own record.
      expect((await as('ben', 'GET', '/users/ann')).body).not.toHaveProperty('email');
      const own = await as('ann', 'PATCH', '/users/ann', { email: 'ann@example.org' });
      expect(own.status, own.text).toBe(200);
      const bulk = await as('ann', 'PATCH', '/users?username=ann', { email: 'ann@example.net' });
      expect(bulk.status, bulk.text).toBe(200);
      expect((await as('root', 'GET', '/users/ann')).body['email']).toBe('ann@example.net');
      for (const path of ['/users/ann', '/users?username=ann'])
        expect((await as('ann', 'PATCH', path, { groups: ['admin'] })).status, path).toBe(403);
      // Another member's, either way: refused, and nothing changes.
      expect((await as('ann', 'PATCH', '/users?username=ben', { email: 'ben@example.org' })).status).toBe(403);
      expect((await as('ann', 'PATCH', '/users', { email: 'all@example.org' })).status).toBe(403);
      expect((await as('root', 'GET', '/users/ben')).body['email']).toBe('ben@example.com');
      expect((await as('root', 'GET', '/users/ann')).body['groups']).toEqual(['user']);
    });
  });

  describe('/users/self', () => {
    it("shows the caller as their own URL does, their books' and notes' keys included", async () => {
      const self = await as('ann', 'GET', '/users/self');
      const own = await as('ann', 'GET', '/users/ann');
      expect(self.status, self.text).toBe(200);
      expect((own.body['books'] as unknown[]).length).toBeGreaterThan(0);
      expect({ ...self.body, _self: undefined }).toEqual({ ...own.body, _self: undefined });
    });
  });

  describe("another member's password", () => {
    // The users' collection rules let members update users (`allow authenticated view, update`), and
    // item routes fall back to them: what keeps ben from ann's record is what he may write of it.
    it("is not a member's to set, by a PATCH or a bulk PATCH; her own password is", async () => {
      const login = (login: string, password: string) => as(null, 'POST', '/auth/login', { login, password });
      const taken = await as('ben', 'PATCH', '/users/ann', { password: 'taken-over-1' });
      expect([taken.status, taken.body.errors], taken.text).toEqual([
        403,
        [{ field: 'password', message: 'is not yours to write' }],
      ]);
      // A change of many users writes no member's password, whoever it selects.
      const many = await as('ben', 'PATCH', '/users?username=ann', { password: 'taken-over-1' });
      expect([many.status, many.body.errors], many.text).toEqual([
        403,
        [{ field: 'password', message: 'cannot be changed for many users at once' }],
      ]);
      expect((await login('ann', 'taken-over-1')).status).toBe(401);
      expect((await login('ann', MEMBER_PASSWORD)).status).toBe(200);
      // A member of her own: registered, her password changed by herself, and it is the one that logs in.
      const cookie = /auth_tkt=[^;]*/.exec(
        (
          await as(null, 'POST', '/auth/register', {
            username: 'dora',
            email: 'dora@example.com',
            password: MEMBER_PASSWORD,
          })
        ).headers.get('set-cookie') ?? '',
      )![0];
      const own = await library.withCookie(cookie, 'PATCH', '/users/dora', {
        password: 'dora-changed-1',
        current_password: MEMBER_PASSWORD,
      });
      expect(own.status, own.text).toBe(200);
      expect((await login('dora', 'dora-changed-1')).status).toBe(200);
    });
  });

  describe("a member's own password", () => {
    // Someone with her session (a stolen cookie) must not be able to lock her out.
    it('is changed only with the current one, which a wrong guess does not give away', async () => {
      const login = (login: string, password: string) => as(null, 'POST', '/auth/login', { login, password });
      const register = await as(null, 'POST', '/auth/register', {
        username: 'erin',
        email: 'erin@example.com',
        password: MEMBER_PASSWORD,
      });
      const cookie = /auth_tkt=[^;]*/.exec(register.headers.get('set-cookie') ?? '')![0];
      const change = (body: Record<string, unknown>) => library.withCookie(cookie, 'PATCH', '/users/self', body);
      const without = await change({ password: 'erin-changed-1' });
      expect([without.status, without.body.errors], without.text).toEqual([
        403,
        [{ field: 'current_password', message: 'is required to change your password' }],
      ]);
      const wrong = await change({ password: 'erin-changed-1', current_password: 'not-her-password' });
      expect([wrong.status, wrong.body.errors], wrong.text).toEqual([
        403,
        [{ field: 'current_password', message: 'is not your current password' }],
      ]);
      // Nothing changed: her password logs in, the new one does not, and her session still works.
      expect((await login('erin', 'erin-changed-1')).status).toBe(401);
      expect((await login('erin', MEMBER_PASSWORD)).status).toBe(200);
      // Her password sent as it is (as a form sending the whole record does) changes nothing.
      const same = await change({ password: MEMBER_PASSWORD, email: 'erin@example.org' });
      expect(same.status, same.text).toBe(200);
      expect((await library.withCookie(cookie, 'GET', '/users/self')).status).toBe(200);
      const right = await change({ password: 'erin-changed-1', current_password: MEMBER_PASSWORD });
      expect(right.status, right.text).toBe(200);
      expect((await login('erin', 'erin-changed-1')).status).toBe(200);
      // An admin sets another user's password without it.
      expect((await as('root', 'PATCH', '/users/erin', { password: 'erin-reset-1' })).status).toBe(200);
      expect((await login('erin', 'erin-reset-1')).status).toBe(200);
    });

    it('is proved with guesses the login brake counts', async () => {
      const register = await as(null, 'POST', '/auth/register', {
        username: 'finn',
        email: 'finn@example.com',
        password: MEMBER_PASSWORD,
      });
      const cookie = /auth_tkt=[^;]*/.exec(register.headers.get('set-cookie') ?? '')![0];
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) {
        const reply = await library.withCookie(cookie, 'PATCH', '/users/self', {
          password: 'finn-changed-1',
          current_password: `guess-${i}`,
        });
        statuses.push(reply.status);
      }
      // Five guesses a window (auth.login_attempts), then 429: the right password would not be checked.
      expect(statuses).toEqual([403, 403, 403, 403, 403, 429, 429]);
      // They are the account's guesses, which logins share: the right password does not log in
      // either, from this address, until the window ends (a stolen session has no guesses of its own).
      const login = await as(null, 'POST', '/auth/login', { login: 'finn', password: MEMBER_PASSWORD });
      expect(login.status, login.text).toBe(401);
    });

    it("is proved with the guesses a login left, and none once the login's are used up", async () => {
      const register = await as(null, 'POST', '/auth/register', {
        username: 'gil',
        email: 'gil@example.com',
        password: MEMBER_PASSWORD,
      });
      const cookie = /auth_tkt=[^;]*/.exec(register.headers.get('set-cookie') ?? '')![0];
      // By email: another login of the same account, so that its own count (per login as written) stays open.
      for (let i = 0; i < 5; i++)
        expect(
          (await as(null, 'POST', '/auth/login', { login: 'gil@example.com', password: `guess-${i}` })).status,
        ).toBe(401);
      const proof = await library.withCookie(cookie, 'PATCH', '/users/self', {
        password: 'gil-changed-1',
        current_password: MEMBER_PASSWORD,
      });
      expect(proof.status, proof.text).toBe(429);
    });
  });

  describe('writes by key', () => {
    // Authors' rules decide on the route alone: a PATCH goes to the database by key, unread.
    it('lets a member change a shared author by its key, refuses anonymous callers whether or not it exists, and 404s a missing one', async () => {
      const author = (await as('ann', 'POST', '/authors', { name: 'By key' })).body;
      const path = `/authors/${String(author['id'])}`;
      const changed = await as('ben', 'PATCH', path, { name: 'By key, revised' });
      expect([changed.status, changed.body['name']]).toEqual([200, 'By key, revised']);
      for (const target of [path, '/authors/999999', '/authors/abc']) {
        expect((await as(null, 'PATCH', target, { name: 'taken' })).status).toBe(401);
        expect((await as(null, 'PUT', target, { name: 'taken' })).status).toBe(401);
      }
      expect((await as('ben', 'PATCH', '/authors/999999', { name: 'nobody' })).status).toBe(404);
      expect((await as('ben', 'PATCH', '/authors/abc', { name: 'nobody' })).status).toBe(404);
      const rekeyed = await as('ben', 'PATCH', path, { id: 999_998, name: 'moved' });
      expect(rekeyed.status).toBe(400);
      // The key as a read finds it: `/authors/0<id>` names no author, as for a read; its own key in the body is no change.
      const padded = await as('ben', 'PATCH', `/authors/0${String(author['id'])}`, {
        id: author['id'],
        name: 'By key, padded',
      });
      expect([padded.status, padded.body.message], padded.text).toEqual([
        404,
        `Author 0${String(author['id'])} not found`,
      ]);
      const same = await as('ben', 'PATCH', path, { id: author['id'], name: 'By key, revised' });
      expect(same.status, same.text).toBe(200);
      expect((await as('root', 'GET', path)).body).toMatchObject({ id: author['id'], name: 'By key, revised' });
      expect((await as('root', 'GET', '/authors/999998')).status).toBe(404);
    });
  });

  describe('what lies below an object the caller may not view, or comes back from it', () => {
    /** The answer with the book's key taken out: the same for a book that does not exist. */
    const shape = (reply: { status: number; body: Rec }, key: unknown) =>
      JSON.stringify([reply.status, reply.body['message']]).replaceAll(`Book ${String(key)}`, 'Book <key>');

    it('answers the notes and the featured note of a book the caller may not view as those of no book', async () => {
      const shown = (await as('ann', 'POST', '/books', { title: 'with a featured note' })).body as Rec;
      const featured = await as('ann', 'POST', `/books/${String(shown['id'])}/featured_note`, { text: 'see this' });
      expect(featured.status, featured.text).toBe(201);
      for (const below of ['notes', 'featured_note']) {
        const nowhere = await as('olga', 'GET', `/books/999999/${below}`);
        expect(nowhere.status).toBe(404);
        // ann's book has a featured note, ben's has none: neither tells a banned member so.
        for (const book of [shown, benBook]) {
          const hidden = await as('olga', 'GET', `/books/${String(book['id'])}/${below}`);
          expect(shape(hidden, book['id']), below).toBe(shape(nowhere, 999_999));
        }
      }
      // A member who may view the book sees what is below it, as its rules allow.
      expect((await as('ben', 'GET', `/books/${String(annBook['id'])}/notes`)).status).toBe(200);
      expect((await as('ben', 'GET', `/books/${String(benBook['id'])}/featured_note`)).status).toBe(404);
      expect((await as('ann', 'GET', `/books/${String(shown['id'])}/featured_note`)).body['text']).toBe('see this');
    });

    it("shows nothing of an object to a caller who may change it but not view it (a banned owner's book), and lets no If-Match guess through", async () => {
      // A creator sees what they made.
      const created = await as('olga', 'POST', '/books', { title: "olga's diary" });
      expect(created.status, created.text).toBe(201);
      const path = `/books/${String(created.body['id'])}`;
      expect((await as('root', 'PATCH', path, { summary: 'kept from olga' })).status).toBe(200);
      expect((await as('olga', 'GET', path)).status).toBe(403);
      const changed = await as('olga', 'PATCH', path, {});
      expect([changed.status, changed.body['message']]).toEqual([200, 'Updated (you may not read it)']);
      expect(changed.text).not.toContain('kept from olga');
      expect(changed.headers.get('etag')).toBeNull();
      // The book's after handler sets its title on the answer: not on this one.
      expect(changed.body['title']).toBe('OK');
      expect(changed.text).not.toContain("olga's diary");
      // The owner may still change it; they have seen no version of it, so only `If-Match: *` is one.
      const write = (ifMatch: string) =>
        fetch(`${library.service.origin}/v1${path}`, {
          method: 'PATCH',
          headers: { cookie: library.cookie('olga'), 'content-type': 'application/json', 'if-match': ifMatch },
          body: JSON.stringify({ title: `olga's diary (${ifMatch})` }),
        });
      const owned = (await as('root', 'GET', path)).headers.get('etag')!;
      expect((await write(owned)).status).toBe(412);
      expect((await write('*')).status).toBe(200);
      expect((await as('root', 'GET', path)).body['title']).toBe("olga's diary (*)");
    });
  });

  describe('a page is bounded by its page size', () => {
    it('embeds the author of every book without the keys of all its books', async () => {
      const prolific = (await as('root', 'POST', '/authors', { name: 'Prolific' })).body;
      for (let i = 0; i < PROLIFIC; i++) {
        const book = await as('root', 'POST', '/books', { title: `volume ${i}`, author: prolific['id'] });
        expect(book.status).toBe(201);
      }
      const page = await as('ben', 'GET', `/books?author=${String(prolific['id'])}&_limit=100`);
      expect(page.body.count).toBe(100);
      for (const book of page.body.data as Rec[]) {
        expect(book['author']).toMatchObject({ id: prolific['id'], name: 'Prolific', _type: 'Author' });
        expect(book['author']).not.toHaveProperty('books');
      }
      // Each book is about 300 bytes: nothing near 100 copies of 300 keys.
      expect(page.text.length).toBeLessThan(100 * 600);
      // The author's own answer still lists every book.
      const own = await as('ben', 'GET', `/authors/${String(prolific['id'])}`);
      expect((own.body['books'] as unknown[]).length).toBe(PROLIFIC);
    });
  });
});

describe('a principal without where on sqlite', () => {
  const { as, start, stop } = libraryService('sqlite', 'library_no_where');

  beforeAll(async () => {
    const plain = await generatedProject('library', 'e2e-library-no-where');
    await withLibraryFunctions(plain, OWNER_WITHOUT_WHERE);
    await start(plain);
    for (const [who, text] of [
      ['ann', 'ann remembers'],
      ['ben', 'ben remembers'],
    ] as const)
      expect((await as(who, 'POST', '/notes', { text })).status).toBe(201);
  }, 600_000);

  afterAll(stop);

  it('lists what the collection rules allow, as Ramses did, while each item is still refused', async () => {
    const notes = await as('ann', 'GET', '/notes');
    expect(notes.body.total).toBe(2);
    const bens = (notes.body.data as Rec[]).find((n) => n['text'] === 'ben remembers')!;
    expect((await as('ann', 'GET', `/notes/${String(bens['id'])}`)).status).toBe(403);
    // A banned member's rule is a fixed principal's: it still decides every book.
    expect((await as('olga', 'GET', '/books')).body.total).toBe(0);
  });
});

describe('auth.hide_refused on sqlite: what a member may not view is answered as missing', () => {
  const { as, start, stop } = libraryService('sqlite', 'library_hidden', { SVC_AUTH_HIDE_REFUSED: 'true' });
  let annNote: Rec;
  let annBook: Rec;

  beforeAll(async () => {
    await start(dir);
    annNote = (await as('ann', 'POST', '/notes', { text: 'ann alone' })).body as Rec;
    annBook = (await as('ann', 'POST', '/books', { title: 'Shared shelf' })).body as Rec;
  }, 600_000);

  afterAll(stop);

  it('answers a note of another member as it answers a note that is not there, whatever the method', async () => {
    const missing = await as('ben', 'GET', '/notes/999999');
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const other = await as(
        'ben',
        method,
        `/notes/${String(annNote['id'])}`,
        method === 'PATCH' ? { text: 'mine' } : undefined,
      );
      expect([other.status, other.body.message], method).toEqual([404, `Note ${String(annNote['id'])} not found`]);
    }
    expect(missing.status).toBe(404);
    // Its owner still has it, unchanged.
    expect(((await as('ann', 'GET', `/notes/${String(annNote['id'])}`)).body as Rec)['text']).toBe('ann alone');
  });

  it('still refuses with 403 what the member may view but not change; a book hidden from a banned member is missing to her', async () => {
    // ben sees ann's book (everyone may view it), so it is no secret that it exists.
    expect((await as('ben', 'PATCH', `/books/${String(annBook['id'])}`, { title: 'taken' })).status).toBe(403);
    // olga is banned from every book (a group line, among rules that read the book): the same answer as for none.
    expect((await as('olga', 'GET', `/books/${String(annBook['id'])}`)).status).toBe(404);
    expect((await as('olga', 'GET', '/books/999999')).status).toBe(404);
  });
});
