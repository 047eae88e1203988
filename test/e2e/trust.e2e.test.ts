/**
 * What an adversarial probe of ramses-example found a member could do (issue 34), each tried
 * again on every engine, with Ramses' own principals and auth on:
 *
 * - take another member's story or profile by linking it to themselves (register, PATCH, PUT);
 * - undo their own demotion with a PUT that leaves `groups` out;
 * - get more password guesses than the brake allows, in parallel or by username and email;
 * - keep everyone else from logging in with a burst of made-up logins from one address;
 * - store a date-time in a form that filters then miss on one engine;
 * - register a name that looks like another's, or get an answer in another error shape.
 *
 * The service trusts X-Forwarded-For here (`http.trust_proxy`), so that each test speaks from
 * addresses of its own, as clients behind a proxy would.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyTable, ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, rawSocket, type Api, type Reply } from '../support/http.js';
import { generatedProject } from '../support/project.js';
import { withRamsesFunctions } from '../support/ramses-example.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/v1';
const PASSWORD = 'password-123';

type Rec = Record<string, unknown>;

let dir: string;

beforeAll(async () => {
  dir = await generatedProject('ramses-example', 'e2e-trust');
  await withRamsesFunctions(dir);
}, 600_000);

describe.each(ENGINES)('ramses-example against a member who takes what is not theirs, on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;
  const cookies = new Map<string, string>();
  let address = 0;
  /** An address of its own for each caller that needs one (the rate limits count by address). */
  const newAddress = () => `10.34.${Math.floor(++address / 250)}.${address % 250}`;

  const as = (who: string | null, method: string, path: string, body?: unknown, from = '10.0.0.1') =>
    api(method, path, body, {
      headers: { 'x-forwarded-for': from, ...(who ? { cookie: cookies.get(who)! } : {}) },
    });
  const keep = (who: string, reply: Reply) => {
    expect(reply.status, reply.text).toBeLessThan(300);
    cookies.set(who, /ramses_auth_tkt=[^;]*/.exec(reply.headers.get('set-cookie') ?? '')![0]);
  };
  /** A login from an address of its own, with `cookie` (a device's) or none. */
  const guess = (name: string, password: string, cookie?: string) =>
    api(
      'POST',
      '/auth/login',
      { login: name, password },
      {
        headers: { 'x-forwarded-for': newAddress(), ...(cookie ? { cookie } : {}) },
      },
    );
  /** The device cookie a successful login or registration set. */
  const deviceCookie = (reply: Reply) => {
    expect(reply.status, reply.text).toBeLessThan(300);
    return /ramses_auth_tkt_device_[0-9a-f]{12}=[^;]*/.exec(reply.headers.get('set-cookie') ?? '')![0];
  };
  const register = (username: string, extra: Rec = {}, from = newAddress()) =>
    as(
      null,
      'POST',
      '/auth/register',
      { username, email: `${username}@example.com`, password: PASSWORD, ...extra },
      from,
    );
  const login = (name: string, password: string, from: string) =>
    as(null, 'POST', '/auth/login', { login: name, password }, from);
  const asRoot = (method: string, path: string, body?: unknown) => as('root', method, path, body, '10.0.0.2');
  const serviceEnv = () => ({
    ...database.env,
    SVC_AUTH: 'true',
    SVC_AUTH_TKT_SECRET: 'trust-secret-0123456789abcdef0123456789abcdef',
    SVC_SYSTEM_USER: 'root',
    SVC_SYSTEM_PASSWORD: 'root-password',
    SVC_SYSTEM_EMAIL: 'root@example.com',
    SVC_HTTP_TRUST_PROXY: 'true',
    // Failed logins at one account from every device it never logged in from (100 a day by default).
    SVC_AUTH_ACCOUNT_ATTEMPTS: '12',
  });

  beforeAll(async () => {
    database = await testDatabase(engine, dir, 'trust');
    service = await startService(dir, serviceEnv(), BASE);
    api = apiClient(service.origin, BASE);
    keep('root', await login('root', 'root-password', '10.0.0.2'));
    for (const name of ['bob', 'mal']) keep(name, await register(name));
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  describe('relationship writes re-link only what the caller may update', () => {
    let story: Rec;
    let profile: Rec;
    /** Who owns bob's story and whose profile bob's is, read as an admin. */
    const links = async () => ({
      story: (await asRoot('GET', `/stories/${String(story['id'])}`)).body['owner'],
      profile: (await asRoot('GET', '/users/bob')).body['profile']?.['id'] ?? null,
    });

    beforeAll(async () => {
      story = (await as('bob', 'POST', '/stories', { name: "bob's", description: 'his' })).body;
      profile = (await as('bob', 'POST', '/users/bob/profile', { address: 'Bob Street' })).body;
      expect(await links()).toEqual({ story: 'bob', profile: profile['id'] });
    });

    it("refuses a registration that takes bob's story or profile, and no user is created", async () => {
      const taken = await register('thief', { stories: [story['id']] });
      expect(taken.status, taken.text).toBe(403);
      // The story, which anyone may view, may not be moved; bob's profile, which a new user may not
      // even view, is one that does not exist, with no partner to lose: named with the story, it is
      // that 400, asked first (what the write would move of the objects it names comes after).
      expect(taken.body.errors).toEqual([
        { field: 'stories', message: `moves the link of Story ${String(story['id'])}, which you may not change` },
      ]);
      const both = await register('thief', { stories: [story['id']], profile: profile['id'] });
      expect([both.status, both.body.errors], both.text).toEqual([
        400,
        [{ field: 'profile', message: `Profile ${String(profile['id'])} not found` }],
      ]);
      const hidden = await register('thief', { profile: profile['id'] });
      const missing = await register('thief', { profile: 999_999 });
      expect([hidden.status, hidden.body.errors], hidden.text).toEqual([
        400,
        [{ field: 'profile', message: `Profile ${String(profile['id'])} not found` }],
      ]);
      expect([missing.status, missing.body.errors]).toEqual([
        400,
        [{ field: 'profile', message: 'Profile 999999 not found' }],
      ]);
      expect(await links()).toEqual({ story: 'bob', profile: profile['id'] });
      expect((await asRoot('GET', '/users/thief')).status).toBe(404);
    });

    it("refuses a member's PATCH and PUT of themselves that would take bob's story or profile", async () => {
      for (const body of [{ stories: [story['id']] }, { assigned_stories: [story['id']] }]) {
        const reply = await as('mal', 'PATCH', '/users/mal', body);
        expect(reply.status, `${JSON.stringify(body)}: ${reply.text}`).toBe(403);
      }
      // bob's profile is his alone to view ({{user_profile}}): a link to it is answered as one to no profile.
      const taken = await as('mal', 'PATCH', '/users/mal', { profile: profile['id'] });
      expect([taken.status, taken.body.errors], taken.text).toEqual([
        400,
        [{ field: 'profile', message: `Profile ${String(profile['id'])} not found` }],
      ]);
      const put = await as('mal', 'PUT', '/users/mal', {
        username: 'mal',
        email: 'mal@example.com',
        password: PASSWORD,
        stories: [story['id']],
      });
      expect(put.status, put.text).toBe(403);
      expect(await links()).toEqual({ story: 'bob', profile: profile['id'] });
    });

    it('lets a member link what they may update, and an admin link anything', async () => {
      const own = (await as('mal', 'POST', '/stories', { name: "mal's", description: 'hers' })).body;
      const assigned = await as('mal', 'PATCH', '/users/mal', { assigned_stories: [own['id']] });
      expect(assigned.status, assigned.text).toBe(200);
      expect(assigned.body['assigned_stories']).toEqual([own['id']]);
      expect((await asRoot('PATCH', '/users/root', { stories: [story['id']] })).status).toBe(200);
      expect((await links()).story).toBe('root');
      expect((await asRoot('PATCH', '/users/bob', { stories: [story['id']] })).status).toBe(200);
    });
  });

  describe('a promotion or demotion through the API', () => {
    it("holds at the member's very next write, however many of their writes came before it", async () => {
      // SQLite keeps a caller's identification while the user and credential tables are unchanged
      // (lib/sql/table-versions.ts): the admin's PATCH of the user must end it at once.
      const target = (await asRoot('POST', '/stories', { name: "root's", description: 'not theirs' })).body;
      const path = `/stories/${String(target['id'])}`;
      keep('climber', await register('climber'));
      const update = async (name: string) => {
        const own = await as('climber', 'POST', '/stories', { name: `own ${name}`, description: 'theirs' });
        expect(own.status, own.text).toBe(201);
        return (await as('climber', 'PATCH', path, { name })).status;
      };
      expect(await update('member 1')).toBe(403);
      expect(await update('member 2')).toBe(403);
      expect((await asRoot('PATCH', '/users/climber', { groups: ['admin'] })).status).toBe(200);
      expect(await update('admin 1')).toBe(200);
      expect(await update('admin 2')).toBe(200);
      expect((await asRoot('PATCH', '/users/climber', { groups: [] })).status).toBe(200);
      expect(await update('member 3')).toBe(403);
      expect((await asRoot('GET', path)).body['name']).toBe('admin 2');
    });

    it('holds against the member writing in parallel: nothing they send once the demotion is answered gets through', async () => {
      const target = (await asRoot('POST', '/stories', { name: "root's", description: 'contended' })).body;
      const path = `/stories/${String(target['id'])}`;
      keep('racer', await register('racer'));
      expect((await asRoot('PATCH', '/users/racer', { groups: ['admin'] })).status).toBe(200);
      let demoted = false;
      let stop = false;
      const after: number[] = [];
      const before: number[] = [];
      // Each writer from an address of its own (the rate limits count by address); each of its
      // requests a write of another table (its own story) and the update only an admin may make.
      const writer = async (from: string) => {
        for (let i = 0; !stop; i++) {
          const sentAfter = demoted;
          const own = as('racer', 'POST', '/stories', { name: `own ${i}`, description: 'theirs' }, from);
          const status = (await as('racer', 'PATCH', path, { name: `race ${i}` }, from)).status;
          expect((await own).status).toBe(201);
          (sentAfter ? after : before).push(status);
        }
      };
      const writers = Array.from({ length: 8 }, () => writer(newAddress()));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await asRoot('PATCH', '/users/racer', { groups: [] })).status).toBe(200);
      demoted = true;
      await new Promise((resolve) => setTimeout(resolve, 300));
      stop = true;
      await Promise.all(writers);
      expect(before).toContain(200);
      expect(after.length).toBeGreaterThan(0);
      expect(after.filter((status) => status !== 403)).toEqual([]);
    });
  });

  describe("a member's PUT keeps what they may not write", () => {
    it('keeps the groups an admin took away, and the owner of a story', async () => {
      keep('demoted', await register('demoted'));
      expect((await asRoot('PATCH', '/users/demoted', { groups: [] })).body['groups']).toEqual([]);
      const put = await as('demoted', 'PUT', '/users/demoted', {
        username: 'demoted',
        email: 'demoted@example.com',
        password: PASSWORD,
      });
      expect(put.status, put.text).toBe(200);
      expect((await asRoot('GET', '/users/demoted')).body['groups']).toEqual([]);

      const story = (await as('mal', 'POST', '/stories', { name: 'kept', description: 'd' })).body;
      const replaced = await as('mal', 'PUT', `/stories/${String(story['id'])}`, {
        name: 'replaced',
        description: 'd',
      });
      expect(replaced.status, replaced.text).toBe(200);
      expect((await asRoot('GET', `/stories/${String(story['id'])}`)).body).toMatchObject({
        name: 'replaced',
        owner: 'mal',
      });
    });
  });

  describe("_fields on one's own record, and on another's", () => {
    it('names the fields of their own record a member may read, and refuses those of another alike with a typo', async () => {
      const own = await as('bob', 'GET', '/users/bob?_fields=username,email');
      expect(own.status, own.text).toBe(200);
      expect(own.body).toMatchObject({ username: 'bob', email: 'bob@example.com' });
      expect(Object.keys(own.body).filter((k) => !k.startsWith('_'))).toEqual(['username', 'email']);
      const self = await as('bob', 'GET', '/users/self?_fields=username,profile');
      expect(self.status, self.text).toBe(200);
      expect(self.body).toHaveProperty('profile');
      // Another member's email, and a field that does not exist, get the same answer.
      const refused = (query: string) => as('mal', 'GET', `/users/bob?_fields=${query}`);
      const hidden = await refused('username,email');
      const typo = await refused('username,emial');
      expect([hidden.status, typo.status]).toEqual([400, 400]);
      expect(hidden.body.errors).toEqual([{ field: '_fields', message: 'names email: no field of User you may read' }]);
      expect(typo.body.errors).toEqual([{ field: '_fields', message: 'names emial: no field of User you may read' }]);
      // A list holds others' records: what it may be filtered or sorted by is what all of them show,
      // and a field of their own record alone is said to be so (it was "no field you may read").
      for (const [query, message] of [
        ['email=bob@example.com', 'is shown on your own record only: a list is not filtered by it'],
        ['_sort=email', 'cannot sort by email: it is shown on your own record only'],
      ] as const) {
        const listed = await as('bob', 'GET', `/users?${query}`);
        expect(listed.status, query).toBe(400);
        expect(JSON.stringify(listed.body.errors), query).toContain(message);
      }
      // Another's list query of a field they may read on no record is told as a typo is.
      const other = await as('mal', 'GET', '/users?_sort=emial');
      expect(JSON.stringify(other.body.errors)).toContain('no field of User you may read');
    });

    it("shows a member's own row of a list whole under _fields, and others' rows as they may read them", async () => {
      const rows = async (query: string) => {
        const listed = await as('bob', 'GET', `/users?username__in=bob,mal&_sort=username&${query}`);
        expect(listed.status, `${query}: ${listed.text}`).toBe(200);
        return (listed.body.data as Rec[]).map((row) =>
          Object.keys(row)
            .filter((k) => !k.startsWith('_'))
            .sort(),
        );
      };
      const [whole] = await rows('');
      // Leaving a field out keeps the rest of bob's own record in his row.
      const [bob, mal] = await rows('_fields=-first_name');
      expect(bob).toEqual(whole!.filter((k) => k !== 'first_name'));
      expect(mal).not.toContain('email');
      // His email, which only his own row shows.
      expect(await rows('_fields=username,email')).toEqual([['email', 'username'], ['username']]);
    });
  });

  describe('the auth routes answer with the user as the user reads themselves', () => {
    it('register, login and /users/self show the same fields, and each of register and login sets last_login', async () => {
      const registered = await register('carol');
      keep('carol', registered);
      // Registering logs the user in (a new user read null there, and the README said a login sets it).
      expect(registered.body['last_login']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      const loggedIn = await login('carol', PASSWORD, newAddress());
      expect(loggedIn.status, loggedIn.text).toBe(200);
      const self = await as('carol', 'GET', '/users/self');
      const shown = (body: Rec) => Object.keys(body).sort();
      expect(shown(loggedIn.body)).toEqual(shown(registered.body));
      expect(shown(self.body)).toEqual(shown(registered.body));
      expect(loggedIn.body['last_login']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(self.body['last_login']).toBe(loggedIn.body['last_login']);
      expect(loggedIn.body['stories']).toEqual([]);
      // The service's stamp: no member writes it, at registration or later (a probe set theirs to 2020).
      const forged = await register('dora', { last_login: '2020-01-01T00:00:00Z' });
      expect(forged.status, forged.text).toBe(403);
      const patched = await as('carol', 'PATCH', '/users/carol', { last_login: '2020-01-01T00:00:00Z' });
      expect(patched.status, patched.text).toBe(403);
      expect((await as('carol', 'GET', '/users/self')).body['last_login']).toBe(loggedIn.body['last_login']);
    });
  });

  describe('the login brake', () => {
    it('lets at most five of 35 parallel guesses reach the password check', async () => {
      keep('guessed', await register('guessed'));
      const from = newAddress();
      const guesses = await Promise.all(
        Array.from({ length: 35 }, (_, i) => login('guessed', `wrong-password-${i}`, from)),
      );
      const statuses = guesses.map((g) => g.status);
      expect(statuses.filter((s) => s === 401).length, String(statuses)).toBeLessThanOrEqual(5);
      expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
      // The right password, too, waits for the window to end.
      const right = await login('guessed', PASSWORD, from);
      expect(right.status).toBe(429);
      expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
      // From another address the account is not locked.
      expect((await login('guessed', PASSWORD, newAddress())).status).toBe(200);
    });

    it('checks at most five passwords of each of several fresh accounts guessed at in parallel bursts', async () => {
      // A fresh account has no row to lock yet: a burst must not read one being inserted and count twice.
      for (let n = 0; n < 4; n++) {
        const name = `burst${n}`;
        await register(name);
        const from = newAddress();
        const guesses = await Promise.all(Array.from({ length: 20 }, (_, i) => login(name, `wrong-${i}`, from)));
        expect(guesses.filter((g) => g.status === 401).length, name).toBeLessThanOrEqual(5);
        // Its email, not guessed at yet, finds the account's five checks used: the right password is not checked.
        expect((await login(`${name}@example.com`, PASSWORD, from)).status, name).toBe(401);
      }
    });

    it('counts guesses by username and by email as one account, and answers a 429 by the login sent alone', async () => {
      await register('twofaced');
      const from = newAddress();
      for (let i = 0; i < 5; i++) {
        const name = i % 2 ? 'twofaced@example.com' : 'TwoFaced';
        expect((await login(name, 'wrong-password', from)).status).toBe(401);
      }
      // The account's five checks are used: the right password, by either login, is not checked.
      const right = await login('twofaced@example.com', PASSWORD, from);
      expect([right.status, right.body.message]).toEqual([401, 'wrong login or password']);
      expect((await login('twofaced', PASSWORD, from)).status).toBe(401);
      expect((await login('twofaced', PASSWORD, newAddress())).status).toBe(200);
    });

    it('counts the guesses of an IPv6 client by its /64 network, not by each of its addresses', async () => {
      await register('sixfold');
      const network = `2001:db8:34:${(++address).toString(16)}`;
      // Five addresses of one /64, written five ways: one client, five checks.
      const from = [`${network}::1`, `${network}::2`, `${network}:0:0:0:3`, `${network}:ffff::`, `${network}::a:b`];
      for (const [i, ip] of from.entries()) expect((await login('sixfold', `wrong-${i}`, ip)).status, ip).toBe(401);
      expect((await login('sixfold', 'wrong-5', `${network}::6`)).status).toBe(429);
      expect((await login('sixfold', PASSWORD, `${network}::7`)).status).toBe(429);
      // Another network is another client.
      expect((await login('sixfold', PASSWORD, `2001:db8:35:${address.toString(16)}::1`)).status).toBe(200);
    });

    it('counts an address by itself, whatever port a proxy wrote beside it', async () => {
      await register('ported');
      const from = newAddress();
      for (let i = 0; i < 5; i++) expect((await login('ported', `wrong-${i}`, `${from}:${4000 + i}`)).status).toBe(401);
      expect((await login('ported', PASSWORD, `${from}:5000`)).status).toBe(429);
      expect((await login('ported', PASSWORD, `::ffff:${from}`)).status).toBe(429);
    });

    it('does not tell whose an email is by the brake: a 429 depends on the login sent, not on its account', async () => {
      await register('linked');
      await register('other');
      const from = newAddress();
      for (let i = 0; i < 5; i++) expect((await login('linked', 'wrong-password', from)).status).toBe(401);
      expect((await login('linked', 'wrong-password', from)).status).toBe(429);
      // linked's email and another's answer alike.
      const answers = await Promise.all(
        ['linked@example.com', 'other@example.com'].map(async (email) => {
          const reply = await login(email, 'wrong-password', from);
          return [reply.status, reply.body.message];
        }),
      );
      expect(answers[0]).toEqual(answers[1]);
      expect(answers[0]).toEqual([401, 'wrong login or password']);
    });

    it("keeps serving other addresses' logins while one address sends 45 made-up ones at once", async () => {
      const users = ['fair1', 'fair2', 'fair3', 'fair4'];
      for (const name of users) await register(name);
      const attacker = newAddress();
      const flood = Array.from({ length: 45 }, (_, i) => login(`made-up-${i}`, 'wrong-password', attacker));
      const honest = users.map((name) => login(name, PASSWORD, newAddress()));
      const [flooded, served] = await Promise.all([Promise.all(flood), Promise.all(honest)]);
      expect(served.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(
        flooded.every((r) => [401, 503].includes(r.status)),
        String(flooded.map((r) => r.status)),
      ).toBe(true);
    });

    it('brakes guesses at one account from many addresses, and yet lets its owner in from a device they logged in from', async () => {
      const device = deviceCookie(await register('spread'));
      const other = deviceCookie(await register('elsewhere'));
      // Twelve strangers, each from an address of its own: the account's twelve checks (auth.account_attempts here).
      for (let i = 0; i < 12; i++) expect((await guess('spread', `wrong-${i}`)).status, `guess ${i}`).toBe(401);
      // Its right password from a thirteenth address is not checked: by its email, a wrong password; by
      // the username, which had the twelve, a 429 that says what to do.
      const byEmail = await guess('spread@example.com', PASSWORD);
      expect([byEmail.status, byEmail.body.message]).toEqual([401, 'wrong login or password']);
      const byName = await guess('spread', PASSWORD);
      expect(byName.status).toBe(429);
      expect(String(byName.body.message)).toMatch(/from a device you have logged in from/);
      // Another account's device cookie, under its name or this account's, or a forged one, vouches for nothing here.
      expect((await guess('spread@example.com', PASSWORD, other)).status).toBe(401);
      const transplanted = `${device.split('=')[0]!}=${other.split('=')[1]!}`;
      expect((await guess('spread@example.com', PASSWORD, transplanted)).status).toBe(401);
      const forged = device.replace(/[0-9a-f](?=[0-9a-f]{8}$)/, (d) => (d === '0' ? '1' : '0'));
      expect(forged).not.toBe(device);
      expect((await guess('spread@example.com', PASSWORD, forged)).status).toBe(401);
      // The owner's own device, from an address never seen, by either login: in.
      expect((await guess('spread', PASSWORD, device)).status).toBe(200);
      expect((await guess('spread@example.com', PASSWORD, device)).status).toBe(200);
      // Which does not give strangers their checks back.
      expect((await guess('spread@example.com', PASSWORD)).status).toBe(401);
    });

    it("keeps each account's device cookie in one browser, and moves one's trust to the browser that changes its password", async () => {
      const [first, second] = [deviceCookie(await register('twin1')), deviceCookie(await register('twin2'))];
      keep('twin1', await login('twin1', PASSWORD, newAddress()));
      expect(first.split('=')[0]).not.toBe(second.split('=')[0]);
      for (const name of ['twin1', 'twin2'])
        for (let i = 0; i < 12; i++) expect((await guess(name, `wrong-${i}`)).status).toBe(401);
      // A browser that logged in to both is let in to each, strangers being out of checks for both.
      const jar = `${first}; ${second}`;
      expect((await guess('twin1@example.com', PASSWORD, jar)).status).toBe(200);
      expect((await guess('twin2@example.com', PASSWORD, jar)).status).toBe(200);
      // A new password: the cookies minted while the old one held vouch for nothing (whoever knew it).
      const changed = await as(
        'twin1',
        'PATCH',
        '/users/twin1',
        { password: 'a-new-password-1', current_password: PASSWORD },
        newAddress(),
      );
      expect(changed.status, changed.text).toBe(200);
      expect((await guess('twin1@example.com', 'a-new-password-1', first)).status).toBe(401);
      expect((await guess('twin2@example.com', PASSWORD, second)).status).toBe(200);
      // The browser that proved the old one gets a cookie for the new one with the change's answer: its
      // owner logs in again from it, strangers being still out of checks.
      expect((await guess('twin1@example.com', 'a-new-password-1', deviceCookie(changed))).status).toBe(200);
    });

    it("lets the owner's device in where others behind its address, or a stolen session, used their counts up", async () => {
      const registered = await register('natted');
      const device = deviceCookie(registered);
      keep('natted', registered);
      const session = cookies.get('natted')!;
      // Five guesses from the address the owner shares (a NAT): its count there is used up...
      const shared = newAddress();
      for (let i = 0; i < 5; i++) expect((await login('natted', `wrong-${i}`, shared)).status).toBe(401);
      expect((await login('natted', PASSWORD, shared)).status).toBe(429);
      // ...but not the owner's device's, which has a count of its own.
      const fromDevice = await api(
        'POST',
        '/auth/login',
        { login: 'natted', password: PASSWORD },
        {
          headers: { 'x-forwarded-for': shared, cookie: device },
        },
      );
      expect(fromDevice.status, fromDevice.text).toBe(200);
      // A stolen session guesses her password by password changes, from addresses of its own, until
      // the sessions' count (twelve here) is used up; her browser, session and device, still proves it.
      const change = (cookie: string, current: string) =>
        api(
          'PATCH',
          '/users/natted',
          { password: 'natted-new-password', current_password: current },
          {
            headers: { 'x-forwarded-for': newAddress(), cookie },
          },
        );
      for (let i = 0; i < 12; i++) expect((await change(session, `wrong-${i}`)).status).toBe(403);
      expect((await change(session, PASSWORD)).status).toBe(429);
      const owners = await change(`${session}; ${device}`, PASSWORD);
      expect(owners.status, owners.text).toBe(200);
    });

    it("gives no device cookie to a failed login, and a successful login's for a year, HttpOnly", async () => {
      await register('vouched');
      const failed = await login('vouched', 'wrong-password', newAddress());
      expect(failed.headers.get('set-cookie') ?? '').not.toMatch(/_device_/);
      const cookie = (await login('vouched', PASSWORD, newAddress())).headers.get('set-cookie') ?? '';
      expect(cookie).toMatch(
        /ramses_auth_tkt_device_[0-9a-f]{12}=[0-9a-f]{8}\.[A-Za-z0-9_-]{22}\.[0-9a-f]{64}; Max-Age=31536000; Path=\/; HttpOnly; SameSite=Lax/,
      );
    });

    it('limits the auth routes per address by default: 60 a minute, then 429', async () => {
      const from = newAddress();
      for (let i = 0; i < 60; i++) expect((await as(null, 'POST', '/auth/logout', undefined, from)).status).toBe(200);
      const limited = await as(null, 'POST', '/auth/logout', undefined, from);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await as(null, 'POST', '/auth/logout', undefined, newAddress())).status).toBe(200);
    });
  });

  describe('date-times are stored in one form', () => {
    it('finds a date-time by its one form whatever form it was written in, and rolls a leap second over', async () => {
      const written = [
        ['lower', '2020-01-01t00:00:00z'],
        ['offset', '2020-01-01T05:30:00.900+05:30'],
        ['leap', '2016-12-31T23:59:60Z'],
      ] as const;
      for (const [name, start] of written) {
        const created = await asRoot('POST', '/stories', { name: `when ${name}`, description: 'd', start_date: start });
        expect(created.status, created.text).toBe(201);
      }
      const shown = (await asRoot('GET', '/stories?name__startswith=when&_sort=name')).body.data.map(
        (s: Rec) => s['start_date'],
      );
      expect(shown).toEqual(['2017-01-01T00:00:00Z', '2020-01-01T00:00:00Z', '2020-01-01T00:00:00Z']);
      expect((await asRoot('GET', '/stories?start_date=2020-01-01T00:00:00Z')).body.total).toBe(2);
      expect((await asRoot('GET', '/stories?start_date__gte=2020-01-01T00:00:00Z')).body.total).toBe(2);
      expect((await asRoot('GET', '/stories?start_date=2017-01-01T00:00:00Z')).body.total).toBe(1);
    });
  });

  describe('names and errors', () => {
    it('refuses names with invisible characters or nothing in them, and takes combining marks as their letter', async () => {
      // `.` and `..` too: every URL resolver takes them for path segments (`/users/..` is `/`).
      for (const username of ['root\u200b', 'ro\u00adot', '   ', '\u0301root', '.', '..']) {
        const reply = await register(username, { email: `${Math.random()}@example.com` });
        expect(reply.status, `${JSON.stringify(username)}: ${reply.text}`).toBe(400);
        expect(reply.body.errors[0].field).toBe('username');
      }
      const dots = await asRoot('POST', '/users', { username: '..', email: 'dots@example.com', password: PASSWORD });
      expect([dots.status, dots.body.errors], dots.text).toEqual([
        400,
        [{ field: 'username', message: 'cannot be "..": a URL would resolve it as a path segment' }],
      ]);
      // The message says why, as the field's error does (it said only "cannot write username").
      const registered = await register('.', { email: 'dot@example.com' });
      expect([dots.body.message, registered.body.message]).toEqual([
        'username cannot be "..": a URL would resolve it as a path segment',
        'username cannot be ".": a URL would resolve it as a path segment',
      ]);
      expect((await register('cafe\u0301', { email: 'cafe1@example.com' })).status).toBe(201);
      expect((await register('café', { email: 'cafe2@example.com' })).status).toBe(409);
      expect((await register('spaced', { email: 'Spaced@Example.COM' })).body['email']).toBe('spaced@example.com');
    });

    it("refuses a name that passes for an existing user's, in whichever script or accents", async () => {
      expect((await register('pa', { email: 'pa@example.com' })).status).toBe(201);
      expect((await register('admin', { email: 'admin@example.com' })).status).toBe(201);
      // Cyrillic р and а; a dotless ı; an accent: each reads as a Latin name taken (a mix of scripts is a 400 already).
      for (const [name, plain] of [
        ['\u0440\u0430', 'pa'],
        ['adm\u0131n', 'admin'],
        ['adm\u00edn', 'admin'],
      ]) {
        const reply = await register(name!, { email: `${Math.random()}@example.com` });
        expect([reply.status, reply.body.errors], `${name}: ${reply.text}`).toEqual([
          409,
          [{ field: 'username', message: `passes for "${plain}", as the name of an existing user does` }],
        ]);
      }
      // Nor does an admin make one: every write of a username is checked, not the registration's alone.
      const made = await asRoot('POST', '/users', {
        username: '\u0440\u0430',
        email: 'pa2@example.com',
        password: PASSWORD,
      });
      expect([made.status, made.body.errors], made.text).toEqual([
        409,
        [{ field: 'username', message: 'passes for "pa", as the name of an existing user does' }],
      ]);
      // A name of its own in another script, or with accents, passes for no one taken.
      expect((await register('\u043e\u043b\u044f', { email: 'olya@example.com' })).status).toBe(201);
      expect((await register('jos\u00e9', { email: 'jose@example.com' })).status).toBe(201);
    });

    it('refuses the plain name beside a lookalike taken first, and frees a name once its user is gone', async () => {
      expect((await register('zo\u00e9', { email: 'zoe1@example.com' })).status).toBe(201);
      expect((await register('\u043e\u043b\u0435\u0441\u044f', { email: 'olesya@example.com' })).status).toBe(201); // Cyrillic олеся
      for (const [name, plain] of [
        ['zoe', 'zoe'],
        ['zo\u00eb', 'zoe'],
        ['\u043e\u043b\u0435\u0441\u044f', undefined],
      ] as const) {
        const reply = await register(name, { email: `${Math.random()}@example.com` });
        if (plain === undefined) {
          expect(reply.status, reply.text).toBe(409); // the same name: the unique username says so
          continue;
        }
        expect([reply.status, reply.body.errors], `${name}: ${reply.text}`).toEqual([
          409,
          [{ field: 'username', message: `passes for "${plain}", as the name of an existing user does` }],
        ]);
      }
      // Nor by an admin's create, nor by a change of a user's own fields with the name kept.
      const made = await asRoot('POST', '/users', { username: 'zoe', email: 'zoe2@example.com', password: PASSWORD });
      expect(made.status, made.text).toBe(409);
      const kept = await asRoot('PATCH', '/users/zo%C3%A9', { username: 'zo\u00e9', email: 'zoe3@example.com' });
      expect(kept.status, kept.text).toBe(200);
      // Once zoé is deleted, zoe is free.
      expect((await asRoot('DELETE', '/users/zo%C3%A9')).status).toBe(200);
      expect((await register('zoe', { email: 'zoe4@example.com' })).status).toBe(201);
      expect((await register('zo\u00e9', { email: 'zoe5@example.com' })).status).toBe(409);
      // A deleted user's own name is not a member's to take: objects may still name it (a message's
      // recipient, read by an x-ACL as user(object.recipient)), and a probe's newcomer read them.
      expect((await asRoot('DELETE', '/users/zoe')).status).toBe(200);
      const taken = await register('zoe', { email: 'zoe6@example.com' });
      expect([taken.status, taken.body.errors]).toEqual([
        409,
        [
          {
            field: 'username',
            message: 'was the name of an account that was deleted or renamed, which objects may still name',
          },
        ],
      ]);
      // An admin gives it again.
      const given = await asRoot('POST', '/users', { username: 'zoe', email: 'zoe7@example.com', password: PASSWORD });
      expect(given.status, given.text).toBe(201);
    });

    it('refuses an indexed or a searched text longer than any engine takes, alike on each', async () => {
      // PostgreSQL's unique index takes at most 2,704 bytes an entry: a 9,000 character email was a 400 there, a 201 on SQLite.
      const long = `${'x'.repeat(2001 - '@example.com'.length)}@example.com`;
      const reply = await register('longmail', { email: long });
      expect([reply.status, reply.body.errors], reply.text.slice(0, 300)).toEqual([
        400,
        [
          {
            field: 'email',
            message:
              'is longer than an indexed text may be: at most 2000 bytes of UTF-8 (as many characters of plain ASCII)',
          },
        ],
      ]);
      const fits = await register('longmail', { email: `${'x'.repeat(2000 - '@example.com'.length)}@example.com` });
      expect(fits.status, fits.text.slice(0, 300)).toBe(201);
      // A searched text: at most 300,000 bytes, alike on each (a 1 MB one was a 201 on SQLite, a 400 on PostgreSQL).
      const words = (bytes: number) => {
        let text = '';
        for (let n = 1; text.length < bytes; n++) text += `${n.toString(16)} `;
        return text.slice(0, bytes);
      };
      const searched = await asRoot('POST', '/stories', { name: 'long', description: words(300_000) });
      expect(searched.status, searched.text.slice(0, 300)).toBe(201);
      const over = await asRoot('POST', '/stories', { name: 'longer', description: words(300_001) });
      expect([over.status, over.body.errors], over.text.slice(0, 300)).toEqual([
        400,
        [
          {
            field: 'description',
            message:
              'is longer than a searched text may be: at most 300,000 bytes of UTF-8 (its field is in full-text search)',
          },
        ],
      ]);
    });

    it('lets one of two lookalike names registered at the same moment through, never both', async () => {
      for (const [plain, other] of [
        ['rene', 'ren\u00e9'],
        ['noel', 'no\u00ebl'],
        ['lea', 'l\u00e9a'],
      ]) {
        const replies = await Promise.all([
          register(plain!, { email: `${plain!}1@example.com` }),
          register(other!, { email: `${plain!}2@example.com` }),
        ]);
        expect(
          replies.map((r) => r.status).sort((a, b) => a - b),
          replies.map((r) => r.text).join(' | '),
        ).toEqual([201, 409]);
      }
      // Where the form's claim is left by a deleted user (stale), taken over by either: still one. (The
      // deleted user's own name is given again by an admin only: made so here, and refused to a member.)
      for (const [round, [first, second]] of [
        ['pia', 'p\u00eda'],
        ['p\u00efa', 'p\u00eca'],
        ['pia', 'p\u00eca'],
      ].entries()) {
        const gone = await asRoot('POST', '/users', {
          username: round === 1 ? 'p\u00eda' : 'pia',
          email: `gone${round}@example.com`,
          password: PASSWORD,
        });
        expect(gone.status, gone.text).toBe(201);
        expect((await asRoot('DELETE', `/users/${encodeURIComponent(String(gone.body['username']))}`)).status).toBe(
          200,
        );
        const replies = await Promise.all([
          register(first!, { email: `first${round}@example.com` }),
          register(second!, { email: `second${round}@example.com` }),
        ]);
        const statuses = replies.map((r) => r.status).sort((a, b) => a - b);
        expect(statuses, replies.map((r) => r.text).join(' | ')).toEqual([201, 409]);
        const made = replies.find((r) => r.status === 201)!;
        expect((await asRoot('DELETE', `/users/${encodeURIComponent(String(made.body['username']))}`)).status).toBe(
          200,
        );
      }
    });

    // Last of the names: it starts the service again.
    it('claims the names of the users a database had before names were claimed, once, at start', async () => {
      // A database of an earlier svcgen: two names that pass for each other, and no claims.
      expect((await register('ana\u00efs', { email: 'anais@example.com' })).status).toBe(201);
      await emptyTable(engine, database.url, dir, 'auth_login_name');
      expect((await register('anais', { email: 'anais2@example.com' })).status).toBe(201);
      await service.stop();
      await emptyTable(engine, database.url, dir, 'auth_login_name');
      service = await startService(dir, serviceEnv(), BASE);
      api = apiClient(service.origin, BASE);
      keep('root', await login('root', 'root-password', '10.0.0.2'));
      const third = await register('ana\u00eds', { email: 'anais3@example.com' });
      expect([third.status, third.body.errors], third.text).toEqual([
        409,
        [{ field: 'username', message: 'passes for "anais", as the name of an existing user does' }],
      ]);
      // Both old names stay, and a write that keeps one as it is goes through.
      for (const [path, username] of [
        ['/users/ana%C3%AFs', 'ana\u00efs'],
        ['/users/anais', 'anais'],
      ]) {
        const kept = await asRoot('PUT', path!, { username, email: `${username!.length}${path!.length}@example.com` });
        expect(kept.status, kept.text).toBe(200);
      }
    });

    it("answers what the router refuses in the service's error shape", async () => {
      const badEncoding = await as(null, 'GET', '/stories/%E0%A4%A');
      expect([badEncoding.status, badEncoding.body?.status_code]).toEqual([400, 400]);
      // So is one in the query, which was read as written (a probe's `?name=%FF` matched "%FF").
      for (const query of ['name=%FF', 'name=%G1', 'q=%E0%A4%A', 'name=a%'])
        expect((await as(null, 'GET', `/stories?${query}`)).body?.errors, query).toEqual([
          { field: 'query', message: 'has a bad percent-encoding' },
        ]);
      expect((await as(null, 'GET', '/stories?name=%25FF%20%C3%A9')).status).toBe(200);
      const long = await as(null, 'GET', `/stories/${'7'.repeat(120)}`);
      expect([long.status, long.body?.status_code]).toEqual([414, 414]);
      // A URL too long for the parser, on a route without a key: its 414 is in the document too (a
      // third-party developer's checker found it missing there), which the client checks every answer against.
      for (const method of ['GET', 'POST']) {
        const tooLong = await as(null, method, `/stories?${'a=1&'.repeat(5_000)}`, method === 'POST' ? {} : undefined);
        expect([tooLong.status, tooLong.body?.status_code], method).toEqual([414, 414]);
      }
    });

    it("answers what Node's HTTP parser refuses, and a Host that is no host, in the service's error shape", async () => {
      const { port } = new URL(service.origin);
      const cases: [string, number][] = [
        // A method in lower case, a request line that is none, a length given twice.
        [`get ${BASE}/health HTTP/1.1\r\nHost: a\r\n\r\n`, 400],
        ['GARBAGE\r\n\r\n', 400],
        [`POST ${BASE}/stories HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`, 400],
        [`GET ${BASE}/health HTTP/1.1\r\nHost: a\r\nX-Big: ${'x'.repeat(20_000)}\r\n\r\n`, 431],
        // A tunnel asked for, to a path or a host: the service is no proxy (a probe's connection was closed unanswered).
        [`CONNECT ${BASE}/stories/1 HTTP/1.1\r\nHost: a\r\n\r\n`, 405],
        ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 405],
        // A query string of 20 KB: the URL is what is too long (it was told its headers were).
        [`GET ${BASE}/stories?${'a=1&'.repeat(5_000)} HTTP/1.1\r\nHost: a\r\n\r\n`, 414],
        // HTTP/1.1 without a Host, and a Host that would end up in _self.
        [`GET ${BASE}/stories HTTP/1.1\r\nConnection: close\r\n\r\n`, 400],
        [`GET ${BASE}/stories HTTP/1.1\r\nHost: evil.example/x?\r\nConnection: close\r\n\r\n`, 400],
        [`GET ${BASE}/stories HTTP/1.1\r\nHost: evil.example:99999\r\nConnection: close\r\n\r\n`, 400],
        [`GET ${BASE}/stories HTTP/1.1\r\nHost: evil..example\r\nConnection: close\r\n\r\n`, 400],
        // A header of one value sent twice, of which Node kept the first unsaid (a probe's second
        // Host, which a proxy in front may read instead; RFC 9112 §3.2).
        [`GET ${BASE}/stories HTTP/1.1\r\nHost: a\r\nhost: evil.example\r\nConnection: close\r\n\r\n`, 400],
        [
          `POST ${BASE}/stories HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Type: text/evil.example\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
          400,
        ],
        [
          `GET ${BASE}/stories HTTP/1.1\r\nHost: a\r\nAuthorization: a\r\nAUTHORIZATION: evil.example\r\nConnection: close\r\n\r\n`,
          400,
        ],
      ];
      for (const [request, status] of cases) {
        const answer = await rawSocket(Number(port), request);
        const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Rec;
        expect([answer.split(' ')[1], body['status_code']], request.slice(0, 40)).toEqual([String(status), status]);
        expect(answer).not.toContain('evil.example');
      }
      // HTTP/1.0 without a Host (old health checks): served, its URLs on the address it came in on.
      const story = (await asRoot('POST', '/stories', { name: 'old client', description: 'd' })).body as Rec;
      const old = await rawSocket(Number(port), `GET ${BASE}/stories?id=${String(story['id'])} HTTP/1.0\r\n\r\n`);
      const page = JSON.parse(old.slice(old.indexOf('\r\n\r\n') + 4)) as { data: Rec[] };
      expect([old.split(' ')[1], String(page.data[0]?.['_self'])]).toEqual([
        '200',
        expect.stringMatching(new RegExp(`^http://127\\.0\\.0\\.1:${port}${BASE}/stories/`)),
      ]);
      // A host name with a port, an address, a bracketed IPv6 address: served.
      for (const host of ['api.example.com:8080', '127.0.0.1', '[::1]:80'])
        expect(
          (
            await rawSocket(Number(port), `GET ${BASE}/stories HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)
          ).split(' ')[1],
          host,
        ).toBe('200');
    });

    it('names its own origin in the links of a request that names an absolute URL (GET http://other/...)', async () => {
      const port = new URL(service.origin).port;
      const get = async (target: string) => {
        const answer = await rawSocket(
          Number(port),
          `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nCookie: ${cookies.get('root')!}\r\nConnection: close\r\n\r\n`,
        );
        return { status: answer.split(' ')[1], body: JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Rec };
      };
      const origin = `http://127.0.0.1:${port}`;
      const page = await get(`http://evil.example${BASE}/users?_limit=1`);
      expect(page.status, JSON.stringify(page.body)).toBe('200');
      expect(page.body['next']).toMatch(new RegExp(`^${origin}${BASE}/users\\?_limit=1&_after=`));
      const missing = await get(`http://evil.example${BASE}/stories/999999`);
      expect([missing.status, missing.body['request_url']]).toEqual(['404', `${origin}${BASE}/stories/999999`]);
      const nowhere = await get(`http://evil.example${BASE}/nowhere`);
      expect([nowhere.status, nowhere.body['message']]).toEqual([
        '404',
        `${BASE}/nowhere is not a resource of this service`,
      ]);
    });

    it('answers TRACE and methods the router does not know with 405 and Allow, and OPTIONS of no item with 404', async () => {
      for (const method of ['TRACE', 'PROPFIND']) {
        const reply = await raw(service.origin, method, `${BASE}/stories/1`);
        expect([reply.status, reply.allow, reply.body['status_code']]).toEqual([
          405,
          'DELETE, GET, HEAD, OPTIONS, PATCH, PUT',
          405,
        ]);
        expect(reply.body['message']).toBe(`${method} is not allowed on /stories/{id}`);
      }
      expect((await as(null, 'OPTIONS', '/stories/999999')).status).toBe(404);
      expect((await as(null, 'OPTIONS', '/stories')).status).toBe(200);
    });
  });
});

/** A request fetch() refuses to send (TRACE) or does not know (PROPFIND). */
function raw(origin: string, method: string, path: string): Promise<{ status: number; allow: string; body: Rec }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}${path}`, { method }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, allow: String(res.headers['allow'] ?? ''), body: JSON.parse(text) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}
