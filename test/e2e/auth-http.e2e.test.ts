/**
 * ramses-example with `auth = true`, built and started as a process, over HTTP on SQLite and
 * PostgreSQL: the Ramses example's Python functions (principals, the
 * set_item_owner handler, the lowercase processor) ported to TypeScript in its user-owned stubs; anonymous callers, members, owners and admins; field privacy; and the
 * hardening of docs/reliability.md (tampered, expired, replayed tickets, CSRF, enumeration,
 * brute force, secrets never shown).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueTicket, ticketKeys, verifyTicket } from '../../runtime/src/lib/auth/ticket.js';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api, type Reply } from '../support/http.js';
import { generatedProject } from '../support/project.js';
import { withRamsesFunctions } from '../support/ramses-example.js';
import { startService, type RunningService } from '../support/server.js';

const SECRET = 'e2e-ticket-secret-0123456789abcdef0123456789';
const COOKIE = 'ramses_auth_tkt';
const PASSWORD = 'password-123';

let dir: string;

beforeAll(async () => {
  dir = await generatedProject('ramses-example', 'e2e-auth');
  await withRamsesFunctions(dir);
}, 600_000);

describe.each(ENGINES)('ramses-example with auth on %s', (engine) => {
  let database: TestDatabase;
  let settings: Record<string, string>;
  let service: RunningService;
  let api: Api;
  const cookies = new Map<string, string>();

  /** A request with `who`'s login cookie (or none). */
  const as = (who: string | null, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    api(method, path, body, { headers: { ...(who ? { cookie: cookies.get(who)! } : {}), ...headers } });

  const ticketOf = (reply: Reply) => /ramses_auth_tkt=([^;]*)/.exec(reply.headers.get('set-cookie') ?? '')?.[1];

  async function register(username: string): Promise<Reply> {
    const reply = await api('POST', '/auth/register', {
      username,
      email: `${username}@example.com`,
      password: PASSWORD,
    });
    if (reply.status === 201) cookies.set(username, `${COOKIE}=${ticketOf(reply)}`);
    return reply;
  }

  async function login(name: string, password = PASSWORD): Promise<Reply> {
    const reply = await api('POST', '/auth/login', { login: name, password });
    if (reply.status === 200) cookies.set(name, `${COOKIE}=${ticketOf(reply)}`);
    return reply;
  }

  beforeAll(async () => {
    database = await testDatabase(engine, dir, 'auth');
    settings = {
      ...database.env,
      SVC_AUTH: 'true',
      SVC_AUTH_TKT_SECRET: SECRET,
      SVC_AUTH_TIMEOUT: '1200',
      SVC_AUTH_REISSUE_TIME: '120',
      SVC_SYSTEM_USER: 'root',
      SVC_SYSTEM_PASSWORD: 'root-password',
      SVC_SYSTEM_EMAIL: 'root@example.com',
      SVC_PUBLIC_MAX_LIMIT: '2',
    };
    service = await startService(dir, settings, '/v1');
    api = apiClient(service.origin, '/v1');
    expect((await login('root', 'root-password')).status).toBe(200);
    for (const name of ['alice', 'bob', 'carol']) expect((await register(name)).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('serves the project’s openapi.json as it is: with auth = true it describes the auth routes and security', async () => {
    const reply = await api('GET', '/openapi.json');
    expect(reply.body).toEqual(JSON.parse(readFileSync(join(dir, 'openapi.json'), 'utf8')));
    expect(Object.keys(reply.body.paths)).toContain('/auth/login');
  });

  it('lets no cache keep an answer and no browser sniff one: no-store and nosniff on logins, reads, writes and errors; the document may be revalidated', async () => {
    const answers = [
      await login('root', 'root-password'),
      await api('GET', '/users?_limit=1'),
      await api('GET', '/users/alice'),
      await api('POST', '/users', {}),
      await api('GET', '/no-such-path'),
      await api('GET', '/health'),
    ];
    for (const reply of answers) {
      expect(reply.headers.get('cache-control'), `${reply.status} ${reply.text.slice(0, 80)}`).toBe('no-store');
      expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect((await api('GET', '/openapi.json')).headers.get('cache-control')).toBe('no-cache');
  });

  it('says at the start that created the system user that it did, and at a later start nothing of it', async () => {
    const created = 'created the system user \\"root\\" (system.user), in the admin group';
    expect(service.output()).toContain(created);
    const again = await startService(dir, settings, '/v1');
    await again.stop();
    expect(again.output()).toContain('serving the API');
    expect(again.output()).not.toContain('created the system user');
  });

  it('refuses to start with a system.user a member registered first, and makes no one an admin', async () => {
    // carol registered herself in beforeAll; an operator now names "carol" (or "Carol") the system user.
    for (const name of ['carol', 'Carol'])
      await expect(startService(dir, { ...settings, SVC_SYSTEM_USER: name }, '/v1')).rejects.toThrow(
        new RegExp(
          `the system user "${name}" \\(system.user\\) exists and is not an admin: someone registered the name`,
        ),
      );
    expect(
      (await api('GET', '/users/carol', undefined, { headers: { cookie: cookies.get('root')! } })).body.groups,
    ).toEqual(['user']);
  }, 120_000);

  it('refuses to start with a system user it cannot make: an email a member registered first, a short password', async () => {
    // carol's email, as she wrote it or not: a message that says so, not the constraint's stack.
    for (const email of ['carol@example.com', 'Carol@Example.COM'])
      await expect(
        startService(dir, { ...settings, SVC_SYSTEM_USER: 'admin2', SVC_SYSTEM_EMAIL: email }, '/v1'),
      ).rejects.toThrow(
        /the system user "admin2" \(system.user\) cannot be created: its email "[^"]+" \(system.email\) is another user's/,
      );
    await expect(
      startService(
        dir,
        { ...settings, SVC_SYSTEM_USER: 'admin3', SVC_SYSTEM_EMAIL: 'admin3@example.com', SVC_SYSTEM_PASSWORD: 'abc' },
        '/v1',
      ),
    ).rejects.toThrow(
      /system.password is 3 characters long: the system user is an admin, whose password must be at least 8/,
    );
    // Held to what a registration is: a name with a zero-width space, an email without @.
    for (const [user, email, said] of [
      ['admin\u200b4', 'admin4@example.com', /system.user contains an invisible, control or format character/],
      ['admin5', 'noat', /system.email must contain @/],
      ['Self', 'self@example.com', /system.user cannot be "self"/],
    ] as const)
      await expect(
        startService(dir, { ...settings, SVC_SYSTEM_USER: user, SVC_SYSTEM_EMAIL: email }, '/v1'),
      ).rejects.toThrow(said);
    const made = await api('GET', '/users?username__in=admin2,admin3,admin5', undefined, {
      headers: { cookie: cookies.get('root')! },
    });
    expect(made.body.total, made.text).toBe(0);
  }, 120_000);

  describe('registering and logging in', () => {
    it('registers a user: 201, logged in with a cookie, no password in the answer', async () => {
      const reply = await register('dave');
      expect(reply.status).toBe(201);
      expect(reply.body).toMatchObject({
        username: 'dave',
        email: 'dave@example.com',
        groups: ['user'],
        _type: 'User',
      });
      expect(reply.body).not.toHaveProperty('password');
      // Like every create: Location names the new user's own URL (the API serves /users/{username}).
      expect(reply.headers.get('location')).toBe(reply.body._self);
      expect(reply.body._self).toMatch(/\/users\/dave$/);
      const cookie = reply.headers.get('set-cookie')!;
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
      expect(cookie).toMatch(/Path=\//);
      expect(cookie).toMatch(/Max-Age=1200/);
      expect(cookie).not.toMatch(/Domain=/);
      expect((await as('dave', 'GET', '/users/self')).body).toMatchObject({
        username: 'dave',
        email: 'dave@example.com',
      });
    });

    it('refuses a taken username or email, whatever its case: 409', async () => {
      expect((await register('ALICE')).status).toBe(409);
      const reply = await api('POST', '/auth/register', {
        username: 'alice2',
        email: 'Alice@Example.com',
        password: PASSWORD,
      });
      expect(reply.status).toBe(409);
    });

    it('refuses groups and short passwords from new users', async () => {
      const withGroups = await api('POST', '/auth/register', {
        username: 'eve',
        email: 'eve@example.com',
        password: PASSWORD,
        groups: ['admin'],
      });
      expect(withGroups.status).toBe(403);
      expect(withGroups.body.errors).toEqual([{ field: 'groups', message: 'only admins change groups' }]);
      expect(
        (await api('POST', '/auth/register', { username: 'eve', email: 'eve@example.com', password: 'pw' })).status,
      ).toBe(400);
      expect(
        (await api('POST', '/auth/register', { username: 'eve', email: 'eve@example.com', password: 'x'.repeat(1025) }))
          .status,
      ).toBe(400);
    });

    it('answers a wrong password and an unknown user alike: 401, same message', async () => {
      const wrong = await api('POST', '/auth/login', { login: 'alice', password: 'not-her-password' });
      const unknown = await api('POST', '/auth/login', { login: 'nobody-at-all', password: 'not-her-password' });
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      const { timestamp: _wrongAt, ...wrongBody } = wrong.body;
      const { timestamp: _unknownAt, ...unknownBody } = unknown.body;
      expect(unknownBody).toEqual(wrongBody);
      expect(wrong.headers.get('set-cookie')).toBeNull();
      expect(unknown.headers.get('set-cookie')).toBeNull();
    });

    it('logs in by username or email, in any case', async () => {
      expect((await api('POST', '/auth/login', { login: 'BOB', password: PASSWORD })).status).toBe(200);
      expect((await api('POST', '/auth/login', { login: 'bob@EXAMPLE.com', password: PASSWORD })).status).toBe(200);
    });

    it('locks a login out after five failures in a minute: 429 with Retry-After', async () => {
      for (let i = 0; i < 5; i++)
        expect((await api('POST', '/auth/login', { login: 'carol', password: 'wrong-password' })).status).toBe(401);
      const locked = await api('POST', '/auth/login', { login: 'carol', password: PASSWORD });
      expect(locked.status).toBe(429);
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    });

    it('says who is logged in at /users/self, and 401 to anonymous callers', async () => {
      expect((await api('GET', '/users/self')).status).toBe(401);
      const me = await as('alice', 'GET', '/users/self');
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ username: 'alice', email: 'alice@example.com' });
      expect(me.body).not.toHaveProperty('password');
    });
  });

  describe('ACLs: anonymous, member, owner, admin', () => {
    let storyId: string;

    beforeAll(async () => {
      const created = await as('alice', 'POST', '/stories', { name: 'mine', description: 'about mine' });
      expect(created.status).toBe(201);
      storyId = created.body._pk;
    });

    it("makes the creator the owner (Ramses' set_item_owner, before_create)", async () => {
      expect((await as('root', 'GET', `/stories/${storyId}`)).body.owner).toBe('alice');
      const byRoot = await as('root', 'POST', '/stories', {
        name: 'given',
        description: 'owner in the body',
        owner: 'bob',
      });
      expect((await as('root', 'GET', `/stories/${byRoot.body._pk}`)).body.owner).toBe('bob');
    });

    it("lower-cases usernames and emails however they are written (Ramses' lowercase processor)", async () => {
      const changed = await as('root', 'PATCH', '/users/carol', { email: 'Carol.New@Example.COM' });
      expect(changed.status).toBe(200);
      expect((await as('root', 'GET', '/users/carol')).body.email).toBe('carol.new@example.com');
    });

    it('lets everyone read, members create, and nobody but admins bulk-change or delete', async () => {
      expect((await api('GET', `/stories/${storyId}`)).status).toBe(200);
      expect((await api('POST', '/stories', { name: 'x', description: 'y' })).status).toBe(401);
      expect((await as('bob', 'PATCH', '/stories', {})).status).toBe(403);
      expect((await as('bob', 'DELETE', '/stories')).status).toBe(403);
      expect((await api('DELETE', '/stories')).status).toBe(401);
      // An Authorization header is no credential here, and the 401 says so (a probe sent a Bearer token).
      const bearer = await api(
        'POST',
        '/stories',
        { name: 'x', description: 'y' },
        {
          headers: { authorization: 'Bearer abc.def' },
        },
      );
      expect([bearer.status, bearer.body.message]).toEqual([
        401,
        // This API logs in by cookie alone (x-Ticket).
        'log in to create a Story (an Authorization header is no credential here: log in for the cookie)',
      ]);
    });

    it('lets the owner change the story ({{item_owner}}), not others', async () => {
      expect((await as('alice', 'PATCH', `/stories/${storyId}`, { name: 'renamed' })).status).toBe(200);
      expect((await as('bob', 'PATCH', `/stories/${storyId}`, { name: 'stolen' })).status).toBe(403);
      expect((await api('PATCH', `/stories/${storyId}`, { name: 'stolen' })).status).toBe(401);
      expect((await as('alice', 'DELETE', `/stories/${storyId}`)).status).toBe(403);
      expect((await api('GET', `/stories/${storyId}`)).body.name).toBe('renamed');
      // The log says which x-ACL refused and why; the answer does not (its lines name groups and principals).
      // The logger writes on its own time: wait for the line a little.
      const logged = async (line: string) => {
        for (let i = 0; i < 40 && !service.output().includes(line); i++) await sleep(50);
        return service.output();
      };
      for (const permission of ['update', 'delete'])
        expect(await logged(`lets the caller ${permission}"`)).toContain(
          `"msg":"refused: no line of the x-ACL item_owner_acl lets the caller ${permission}"`,
        );
    });

    it('refuses PUT and DELETE of the story to others, and leaves it as it was', async () => {
      const before = (await as('root', 'GET', `/stories/${storyId}`)).body;
      expect((await as('bob', 'PUT', `/stories/${storyId}`, { name: 'replaced', description: 'by bob' })).status).toBe(
        403,
      );
      expect((await as('bob', 'DELETE', `/stories/${storyId}`)).status).toBe(403);
      expect((await as('root', 'GET', `/stories/${storyId}`)).body).toEqual(before);
    });

    it('takes a user out of admin at once: the same cookie loses the admin rights on its next request', async () => {
      expect((await register('gina')).status).toBe(201);
      expect((await as('root', 'PATCH', '/users/gina', { groups: ['user', 'admin'] })).status).toBe(200);
      expect((await as('gina', 'POST', '/stories', { name: 'g1', description: 'priced', price: 1 })).status).toBe(201);
      expect((await as('root', 'PATCH', '/users/gina', { groups: ['user'] })).status).toBe(200);
      const after = await as('gina', 'POST', '/stories', { name: 'g2', description: 'priced', price: 1 });
      expect(after.status).toBe(403);
      expect(after.body.errors).toEqual([
        { field: 'price', message: 'is not among the fields you may read, nor write' },
      ]);
    });

    it('refuses before reading the body or looking the item up', async () => {
      expect((await api('PATCH', `/stories/${storyId}`, { name: 42 })).status).toBe(401);
      expect((await api('POST', '/stories', { nonsense: true })).status).toBe(401);
      // Item rules that call a user function ({{item_owner}}) need the item: a missing one is a 404.
      expect((await as('bob', 'DELETE', '/stories/999999')).status).toBe(404);
    });

    it('lets users change themselves ({{user_self}}), not others, and never their groups', async () => {
      expect((await as('bob', 'PATCH', '/users/bob', { first_name: 'Bob' })).status).toBe(200);
      expect((await as('bob', 'PATCH', '/users/alice', { first_name: 'Bob' })).status).toBe(403);
      const groups = await as('bob', 'PATCH', '/users/bob', { groups: ['admin'] });
      expect(groups.status).toBe(403);
      expect(groups.body.errors).toEqual([{ field: 'groups', message: 'only admins change groups' }]);
      expect((await as('bob', 'POST', '/users/bob/groups', { admin: true })).status).toBe(403);
      expect((await as('root', 'GET', '/users/bob')).body.groups).toEqual(['user']);
    });

    it('gives a user every right on their own profile ({{user_profile}}, deciding a create by rule.parent)', async () => {
      expect((await as('alice', 'POST', '/users/bob/profile', { address: 'not hers' })).status).toBe(403);
      expect((await as('bob', 'POST', '/users/bob/profile', { address: 'here' })).status).toBe(201);
      expect((await as('bob', 'PATCH', '/users/bob/profile', { address: 'there' })).status).toBe(200);
      expect((await as('alice', 'GET', '/users/bob/profile')).status).toBe(403);
      expect((await api('GET', '/users/bob/profile')).status).toBe(401);
      expect((await as('root', 'GET', '/users/bob/profile')).body.address).toBe('there');
      // Nor can another member take it by linking it to herself: the principal, asked about the profile, does not let
      // her view it, so it is answered as a profile that does not exist.
      const profile = (await as('root', 'GET', '/users/bob/profile')).body._pk as string;
      const taken = await as('alice', 'PATCH', '/users/alice', { profile });
      expect([taken.status, taken.body.errors]).toEqual([
        400,
        [{ field: 'profile', message: `Profile ${profile} not found` }],
      ]);
      expect((await as('root', 'GET', '/users/bob/profile')).body.address).toBe('there');
    });

    it('lets admins do everything', async () => {
      const created = await as('root', 'POST', '/stories', { name: 'admin', description: 'by root', price: 3 });
      expect(created.status).toBe(201);
      expect((await as('root', 'DELETE', `/stories/${created.body._pk}`)).status).toBe(200);
    });
  });

  describe('field privacy', () => {
    it('shows anonymous callers the public fields, members the auth fields, admins all', async () => {
      const created = await as('root', 'POST', '/stories', {
        name: 'fields',
        description: 'secret text',
        price: 5,
        owner: 'alice',
      });
      const id = created.body._pk;
      const anonymous = (await api('GET', `/stories/${id}`)).body;
      expect(Object.keys(anonymous).sort()).toEqual(['_pk', '_self', '_type', 'due_date', 'id', 'name', 'start_date']);
      const member = (await as('bob', 'GET', `/stories/${id}`)).body;
      expect(member).toHaveProperty('description', 'secret text');
      expect(member).not.toHaveProperty('price');
      expect(member).not.toHaveProperty('owner');
      expect((await as('root', 'GET', `/stories/${id}`)).body).toMatchObject({ price: 5, owner: 'alice' });
    });

    it('refuses to write a field the caller cannot see: 403 naming it', async () => {
      const reply = await as('bob', 'POST', '/stories', { name: 'n', description: 'd', price: 1 });
      expect(reply.status).toBe(403);
      expect(reply.body.errors).toEqual([
        { field: 'price', message: 'is not among the fields you may read, nor write' },
      ]);
    });

    it('never shows a password, and cannot be queried by one', async () => {
      const all = await as('root', 'GET', '/users?_limit=50');
      expect(all.status).toBe(200);
      expect(all.text).not.toMatch(/password|argon2/);
      expect((await as('root', 'GET', '/users?_fields=password')).status).toBe(400);
      expect((await as('root', 'GET', '/users?password=x')).status).toBe(400);
      expect((await as('root', 'GET', '/users?_sort=password')).status).toBe(400);
      expect((await api('GET', '/users?email=alice@example.com')).status).toBe(400); // email is not public
    });

    it('gives anonymous callers pages of public_max_limit at most', async () => {
      for (const name of ['p1', 'p2', 'p3']) await as('bob', 'POST', '/stories', { name, description: name });
      const anonymous = await api('GET', '/stories?_limit=100');
      expect(anonymous.body.count).toBeLessThanOrEqual(2);
      expect((await as('bob', 'GET', '/stories?_limit=100')).body.count).toBeGreaterThan(2);
    });
  });

  describe('tickets', () => {
    const keys = ticketKeys([SECRET], 'sha512');
    const now = () => Math.floor(Date.now() / 1000);
    /** alice's ticket, re-signed with a different issue time. */
    const reissued = (seconds: number) => {
      const ticket = verifyTicket(keys, cookies.get('alice')!.split('=')[1]!)!;
      return `${COOKIE}=${issueTicket(keys, { ...ticket, issuedAt: seconds })}`;
    };
    const self = (cookie: string) => api('GET', '/users/self', undefined, { headers: { cookie } });
    /** Waits for the next second to begin; returns it, in seconds. */
    const secondStart = async () => {
      await sleep(1000 - (Date.now() % 1000) + 5);
      return now();
    };

    it('refuses a tampered ticket: the caller is anonymous', async () => {
      const value = cookies.get('alice')!;
      const flipped = value.slice(0, -3) + (value.at(-3) === '0' ? '1' : '0') + value.slice(-2);
      expect((await self(flipped)).status).toBe(401);
      expect((await self(`${COOKIE}=${'a'.repeat(5000)}`)).status).toBe(401);
      const other = issueTicket(
        ticketKeys(['another-secret-another-secret-0123'], 'sha512'),
        verifyTicket(keys, value.split('=')[1]!)!,
      );
      expect((await self(`${COOKIE}=${other}`)).status).toBe(401);
    });

    it('expires after auth.timeout, refuses tickets from the future, and reissues after auth.reissue_time, at the second', async () => {
      // Each ticket is signed at the start of a second, so the service counts the age the test meant.
      const at = async (age: number) => self(reissued((await secondStart()) - age));
      expect((await at(1199)).status).toBe(200);
      expect((await at(1201)).status).toBe(401);
      expect((await self(reissued(now() + 3600))).status).toBe(401);
      const fresh = await at(119);
      expect(fresh.status).toBe(200);
      expect(fresh.headers.getSetCookie()).toEqual([]);
      const due = await at(121);
      expect(due.status).toBe(200);
      expect(due.headers.getSetCookie()).toHaveLength(1);
      expect(due.headers.getSetCookie()[0]).toMatch(/^ramses_auth_tkt=[^;]+;.*Max-Age=1200/);
    });

    it('does not reissue a ticket that is due on logout: one Set-Cookie, the cleared one', async () => {
      await register('hank');
      const ticket = verifyTicket(keys, cookies.get('hank')!.split('=')[1]!)!;
      const due = `${COOKIE}=${issueTicket(keys, { ...ticket, issuedAt: now() - 200 })}`;
      const out = await api('POST', '/auth/logout', undefined, { headers: { cookie: due } });
      expect(out.status).toBe(200);
      expect(out.headers.getSetCookie()).toHaveLength(1);
      expect(out.headers.getSetCookie()[0]).toMatch(/^ramses_auth_tkt=;.*Max-Age=0/);
      expect((await self(due)).status).toBe(401);
    });

    it('refuses cookie writes from another site (CSRF): 403, nothing changed', async () => {
      const before = (await as('root', 'GET', '/users/alice')).body;
      const crossSite = await as(
        'alice',
        'PATCH',
        '/users/alice',
        { first_name: 'Evil' },
        { 'sec-fetch-site': 'cross-site' },
      );
      expect(crossSite.status).toBe(403);
      const foreign = await as(
        'alice',
        'PATCH',
        '/users/alice',
        { first_name: 'Evil' },
        { origin: 'https://evil.example' },
      );
      expect(foreign.status).toBe(403);
      expect((await as('root', 'GET', '/users/alice')).body).toEqual(before);
      // POST and DELETE too, by an admin's cookie, which the ACLs would let through.
      const stories = async () => (await as('root', 'GET', '/stories?_limit=100&_fields=id')).body.total;
      const count = await stories();
      expect(
        (
          await as(
            'root',
            'POST',
            '/stories',
            { name: 'csrf', description: 'planted' },
            { 'sec-fetch-site': 'cross-site' },
          )
        ).status,
      ).toBe(403);
      expect(await stories()).toBe(count);
      const victim = (await as('root', 'POST', '/stories', { name: 'victim', description: 'stays' })).body._pk;
      expect(
        (await as('root', 'DELETE', `/stories/${victim}`, undefined, { origin: 'https://evil.example' })).status,
      ).toBe(403);
      expect((await as('root', 'DELETE', '/stories', undefined, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
      // A sibling subdomain's page (same-site) is another origin too: the browser sends the cookie from it.
      expect(
        (await as('root', 'DELETE', `/stories/${victim}`, undefined, { 'sec-fetch-site': 'same-site' })).status,
      ).toBe(403);
      expect((await as('root', 'GET', `/stories/${victim}`)).status).toBe(200);
      expect(await stories()).toBe(count + 1);
      expect(
        (await as('alice', 'PATCH', '/users/alice', { first_name: 'Alice' }, { 'sec-fetch-site': 'same-origin' }))
          .status,
      ).toBe(200);
      expect((await as('root', 'GET', '/users/alice')).body.first_name).toBe('Alice');
      // A link on another site to GET /auth/logout would end every session of the user: refused, still logged in.
      const crossSites: Record<string, string>[] = [
        { 'sec-fetch-site': 'cross-site' },
        { origin: 'https://evil.example' },
      ];
      for (const headers of crossSites) {
        const out = await as('alice', 'GET', '/auth/logout', undefined, headers);
        expect([out.status, out.body.message], out.text).toEqual([
          403,
          'log in and out from this site only (cross-site request)',
        ]);
        expect((await as('alice', 'GET', '/users/alice')).status).toBe(200);
      }
    });

    it('logs out on a POST with a JSON type and no body, as HTTP wrappers send every request', async () => {
      await register('gina');
      const before = cookies.get('gina')!;
      const out = await as('gina', 'POST', '/auth/logout', undefined, { 'content-type': 'application/json' });
      expect(out.status, out.text).toBe(200);
      expect((await self(before)).status).toBe(401);
      // A route that reads a body still says that it is empty.
      const empty = await as('root', 'POST', '/users', undefined, { 'content-type': 'application/json' });
      expect([empty.status, empty.body?.message]).toEqual([400, 'the request body is empty; send a JSON object']);
    });

    it('invalidates earlier tickets on logout, password change and deletion', async () => {
      const before = cookies.get('bob')!;
      expect((await as('bob', 'POST', '/auth/logout')).status).toBe(200);
      expect((await self(before)).status).toBe(401);

      await login('alice');
      const aliceBefore = cookies.get('alice')!;
      const changed = await as('alice', 'PATCH', '/users/alice', {
        password: 'a-new-password',
        current_password: PASSWORD,
      });
      expect(changed.status, changed.text).toBe(200);
      expect((await self(aliceBefore)).status).toBe(401);
      expect((await login('alice', PASSWORD)).status).toBe(401);
      expect((await login('alice', 'a-new-password')).status).toBe(200);

      await register('frank');
      const frank = cookies.get('frank')!;
      expect((await as('root', 'DELETE', '/users/frank')).status).toBe(200);
      expect((await self(frank)).status).toBe(401);
      // The same name again: refused to anyone but an admin (objects may still name frank), and
      // given by an admin, the old ticket stays worthless.
      const again = await register('frank');
      expect([again.status, again.body?.errors]).toEqual([
        409,
        [
          {
            field: 'username',
            message: 'was the name of an account that was deleted or renamed, which objects may still name',
          },
        ],
      ]);
      const made = await as('root', 'POST', '/users', {
        username: 'frank',
        email: 'frank2@example.com',
        password: PASSWORD,
      });
      expect(made.status, made.text).toBe(201);
      expect((await login('frank')).status).toBe(200);
      expect((await self(frank)).status).toBe(401);
      expect((await self(cookies.get('frank')!)).status).toBe(200);
    });

    it('rotates secrets: with [new, old] an old-key cookie is accepted and reissued under the new key; with [new] alone it is refused', async () => {
      const NEW = 'rotated-ticket-secret-0123456789abcdef0123';
      expect((await register('ivan')).status).toBe(201);
      const cookie = cookies.get('ivan')!;
      const withBoth = await startService(dir, { ...settings, SVC_AUTH_TKT_SECRET: `${NEW},${SECRET}` }, '/v1');
      try {
        const reply = await fetch(`${withBoth.origin}/v1/users/self`, { headers: { cookie } });
        expect(reply.status).toBe(200);
        expect(reply.headers.getSetCookie()).toHaveLength(1);
        const value = /^ramses_auth_tkt=([^;]+);/.exec(reply.headers.getSetCookie()[0]!)![1]!;
        expect(verifyTicket(ticketKeys([NEW], 'sha512'), value)).toMatchObject({ oldKey: false });
        expect(verifyTicket(keys, value)).toBeNull();
      } finally {
        await withBoth.stop();
      }
      const newOnly = await startService(dir, { ...settings, SVC_AUTH_TKT_SECRET: NEW }, '/v1');
      try {
        expect((await fetch(`${newOnly.origin}/v1/users/self`, { headers: { cookie } })).status).toBe(401);
      } finally {
        await newOnly.stop();
      }
    });

    it('an invite-only service (auth.registration = false) registers no one, and an admin makes the accounts', async () => {
      const closed = await startService(dir, { ...settings, SVC_AUTH_REGISTRATION: 'false' }, '/v1');
      try {
        const invited = apiClient(closed.origin, '/v1');
        const body = { username: 'kim', email: 'kim@example.com', password: PASSWORD };
        const refused = await invited('POST', '/auth/register', body);
        expect(refused.status, refused.text).toBe(403);
        expect(refused.body.message).toBe('registration is closed: an admin makes the accounts of this service');
        expect(refused.headers.get('set-cookie')).toBeNull();
        const login = await invited('POST', '/auth/login', { login: 'root', password: 'root-password' });
        const root = /ramses_auth_tkt=[^;]*/.exec(login.headers.get('set-cookie') ?? '')![0];
        const made = await invited('POST', '/users', body, { headers: { cookie: root } });
        expect(made.status, made.text).toBe(201);
        expect((await invited('POST', '/auth/login', { login: 'kim', password: PASSWORD })).status).toBe(200);
      } finally {
        await closed.stop();
      }
    });

    it('refuses a cross-site logout, by GET or POST: 403, and the cookie still works', async () => {
      expect((await register('jack')).status).toBe(201);
      for (const method of ['GET', 'POST']) {
        const reply = await as('jack', method, '/auth/logout', undefined, { 'sec-fetch-site': 'cross-site' });
        expect(reply.status).toBe(403);
        expect(reply.headers.get('set-cookie')).toBeNull();
      }
      expect((await as('jack', 'GET', '/auth/logout', undefined, { origin: 'https://evil.example' })).status).toBe(403);
      expect((await self(cookies.get('jack')!)).status).toBe(200);
    });

    it('clears the cookie on logout, by GET or POST', async () => {
      await login('carol').catch(() => undefined);
      const reply = await api('GET', '/auth/logout');
      expect(reply.status).toBe(200);
      expect(reply.headers.get('set-cookie')).toMatch(/ramses_auth_tkt=;.*Max-Age=0/);
    });
  });
});
